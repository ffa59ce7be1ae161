-- One id space for events, venues and organizers (as WordPress posts):
-- every post-like record first takes an id here, then stores its row in
-- the table of its kind with that id.
CREATE TABLE post_ids (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind VARCHAR(16) NOT NULL
);
--bun:split

CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    login VARCHAR(60) NOT NULL,
    email VARCHAR(255) NOT NULL DEFAULT '',
    display_name VARCHAR(255) NOT NULL DEFAULT '',
    role VARCHAR(20) NOT NULL,
    password_hash VARCHAR(255) NOT NULL,
    locale VARCHAR(10) NOT NULL DEFAULT '',
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL
);
--bun:split

CREATE UNIQUE INDEX users_login_uq ON users (login);
--bun:split

CREATE TABLE app_passwords (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name VARCHAR(255) NOT NULL,
    password_hash VARCHAR(255) NOT NULL,
    created_at DATETIME NOT NULL,
    last_used_at DATETIME NULL,
    last_ip VARCHAR(64) NOT NULL DEFAULT '',
    revoked_at DATETIME NULL
);
--bun:split

CREATE INDEX app_passwords_user_idx ON app_passwords (user_id);
--bun:split

CREATE TABLE sessions (
    id VARCHAR(64) PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token VARCHAR(64) NOT NULL,
    nonce VARCHAR(64) NOT NULL,
    created_at DATETIME NOT NULL,
    expires_at DATETIME NOT NULL
);
--bun:split

CREATE INDEX sessions_user_idx ON sessions (user_id);
--bun:split

CREATE INDEX sessions_expires_idx ON sessions (expires_at);
--bun:split

CREATE TABLE events (
    id INTEGER PRIMARY KEY REFERENCES post_ids (id),
    author_id INTEGER NOT NULL DEFAULT 0,
    status VARCHAR(20) NOT NULL,
    slug VARCHAR(255) NOT NULL,
    lang VARCHAR(10) NOT NULL,
    title VARCHAR(255) NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    excerpt TEXT NOT NULL DEFAULT '',
    published_at DATETIME NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    start_at DATETIME NOT NULL,
    end_at DATETIME NOT NULL,
    timezone VARCHAR(64) NOT NULL DEFAULT '',
    all_day BOOLEAN NOT NULL DEFAULT 0,
    cost TEXT NOT NULL DEFAULT '',
    currency_symbol VARCHAR(16) NOT NULL DEFAULT '',
    currency_code VARCHAR(8) NOT NULL DEFAULT '',
    currency_position VARCHAR(8) NOT NULL DEFAULT '',
    website VARCHAR(255) NULL,
    show_map BOOLEAN NOT NULL DEFAULT 0,
    show_map_link BOOLEAN NOT NULL DEFAULT 0,
    hide_from_listings BOOLEAN NOT NULL DEFAULT 0,
    sticky BOOLEAN NOT NULL DEFAULT 0,
    featured BOOLEAN NOT NULL DEFAULT 0,
    image_url VARCHAR(255) NOT NULL DEFAULT '',
    parent_id INTEGER NULL
);
--bun:split

CREATE UNIQUE INDEX events_slug_uq ON events (slug);
--bun:split

CREATE INDEX events_start_idx ON events (start_at, published_at, id);
--bun:split

CREATE INDEX events_status_start_idx ON events (status, start_at);
--bun:split

CREATE INDEX events_end_idx ON events (end_at);
--bun:split

CREATE INDEX events_author_idx ON events (author_id);
--bun:split

CREATE INDEX events_parent_idx ON events (parent_id);
--bun:split

CREATE INDEX events_published_idx ON events (published_at, id);
--bun:split

CREATE TABLE venues (
    id INTEGER PRIMARY KEY REFERENCES post_ids (id),
    author_id INTEGER NOT NULL DEFAULT 0,
    status VARCHAR(20) NOT NULL,
    slug VARCHAR(255) NOT NULL,
    lang VARCHAR(10) NOT NULL,
    venue VARCHAR(255) NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    address VARCHAR(255) NOT NULL DEFAULT '',
    city VARCHAR(255) NOT NULL DEFAULT '',
    country VARCHAR(255) NOT NULL DEFAULT '',
    province VARCHAR(255) NOT NULL DEFAULT '',
    state VARCHAR(255) NOT NULL DEFAULT '',
    zip VARCHAR(255) NOT NULL DEFAULT '',
    phone VARCHAR(255) NOT NULL DEFAULT '',
    stateprovince VARCHAR(255) NOT NULL DEFAULT '',
    website VARCHAR(255) NOT NULL DEFAULT '',
    image_url VARCHAR(255) NOT NULL DEFAULT '',
    geo_lat DOUBLE NULL,
    geo_lng DOUBLE NULL,
    show_map BOOLEAN NOT NULL DEFAULT 1,
    show_map_link BOOLEAN NOT NULL DEFAULT 1,
    published_at DATETIME NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL
);
--bun:split

CREATE UNIQUE INDEX venues_slug_uq ON venues (slug);
--bun:split

CREATE INDEX venues_status_published_idx ON venues (status, published_at, id);
--bun:split

CREATE INDEX venues_published_idx ON venues (published_at, id);
--bun:split

CREATE INDEX venues_author_idx ON venues (author_id);
--bun:split

CREATE TABLE organizers (
    id INTEGER PRIMARY KEY REFERENCES post_ids (id),
    author_id INTEGER NOT NULL DEFAULT 0,
    status VARCHAR(20) NOT NULL,
    slug VARCHAR(255) NOT NULL,
    lang VARCHAR(10) NOT NULL,
    organizer VARCHAR(255) NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    phone VARCHAR(255) NOT NULL DEFAULT '',
    website VARCHAR(255) NOT NULL DEFAULT '',
    email VARCHAR(255) NOT NULL DEFAULT '',
    image_url VARCHAR(255) NOT NULL DEFAULT '',
    published_at DATETIME NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL
);
--bun:split

CREATE UNIQUE INDEX organizers_slug_uq ON organizers (slug);
--bun:split

CREATE INDEX organizers_status_published_idx ON organizers (status, published_at, id);
--bun:split

CREATE INDEX organizers_published_idx ON organizers (published_at, id);
--bun:split

CREATE INDEX organizers_author_idx ON organizers (author_id);
--bun:split

-- Categories and tags: terms with their own id space.
CREATE TABLE terms (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    taxonomy VARCHAR(16) NOT NULL,
    name VARCHAR(255) NOT NULL,
    name_key VARCHAR(255) NOT NULL,
    slug VARCHAR(255) NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    parent_id INTEGER NOT NULL DEFAULT 0,
    term_group INTEGER NOT NULL DEFAULT 0,
    lang VARCHAR(10) NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL
);
--bun:split

CREATE UNIQUE INDEX terms_slug_uq ON terms (taxonomy, slug);
--bun:split

CREATE UNIQUE INDEX terms_name_uq ON terms (taxonomy, parent_id, name_key);
--bun:split

CREATE INDEX terms_name_idx ON terms (taxonomy, name_key);
--bun:split

CREATE TABLE event_venues (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    venue_id INTEGER NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, venue_id)
);
--bun:split

CREATE INDEX event_venues_venue_idx ON event_venues (venue_id, event_id);
--bun:split

CREATE TABLE event_organizers (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    organizer_id INTEGER NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, organizer_id)
);
--bun:split

CREATE INDEX event_organizers_organizer_idx ON event_organizers (organizer_id, event_id);
--bun:split

CREATE TABLE event_terms (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    term_id INTEGER NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
    PRIMARY KEY (event_id, term_id)
);
--bun:split

CREATE INDEX event_terms_term_idx ON event_terms (term_id, event_id);
--bun:split

-- Per-field translations; NULL means "not translated, fall back to the record".
CREATE TABLE event_translations (
    event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    lang VARCHAR(10) NOT NULL,
    title VARCHAR(255) NULL,
    description TEXT NULL,
    excerpt TEXT NULL,
    PRIMARY KEY (event_id, lang)
);
--bun:split

CREATE TABLE venue_translations (
    venue_id INTEGER NOT NULL REFERENCES venues (id) ON DELETE CASCADE,
    lang VARCHAR(10) NOT NULL,
    venue VARCHAR(255) NULL,
    description TEXT NULL,
    address VARCHAR(255) NULL,
    city VARCHAR(255) NULL,
    PRIMARY KEY (venue_id, lang)
);
--bun:split

CREATE TABLE organizer_translations (
    organizer_id INTEGER NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
    lang VARCHAR(10) NOT NULL,
    organizer VARCHAR(255) NULL,
    description TEXT NULL,
    PRIMARY KEY (organizer_id, lang)
);
--bun:split

CREATE TABLE term_translations (
    term_id INTEGER NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
    lang VARCHAR(10) NOT NULL,
    name VARCHAR(255) NULL,
    description TEXT NULL,
    PRIMARY KEY (term_id, lang)
);
