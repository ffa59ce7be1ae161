-- What the profile's list of sessions shows: the browser that signed in
-- (its User-Agent, cut to 255 characters), the client's address when last
-- seen, and when it was last seen (written at most every few minutes, with
-- the sliding expiry). The next migration fills last_seen_at of the
-- sessions already open.
ALTER TABLE sessions ADD COLUMN user_agent VARCHAR(255) NOT NULL DEFAULT '';
--bun:split

ALTER TABLE sessions ADD COLUMN ip VARCHAR(64) NOT NULL DEFAULT '';
--bun:split

ALTER TABLE sessions ADD COLUMN last_seen_at DATETIME NULL;
