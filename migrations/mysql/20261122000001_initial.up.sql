-- MySQL/MariaDB schema. DDL commits implicitly on MySQL, so every statement is
-- idempotent (IF NOT EXISTS, indexes declared inline): a run that stopped half-way
-- can simply be run again.
-- One id space for events, venues and organizers (as WordPress posts).
CREATE TABLE IF NOT EXISTS post_ids (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    kind VARCHAR(16) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS users (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    login VARCHAR(60) COLLATE utf8mb4_bin NOT NULL,
    email VARCHAR(255) NOT NULL DEFAULT '',
    display_name VARCHAR(255) NOT NULL DEFAULT '',
    role VARCHAR(20) NOT NULL,
    password_hash VARCHAR(255) NOT NULL,
    locale VARCHAR(10) NOT NULL DEFAULT '',
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    UNIQUE KEY users_login_uq (login)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS app_passwords (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    user_id BIGINT NOT NULL,
    name VARCHAR(255) NOT NULL,
    password_hash VARCHAR(255) NOT NULL,
    created_at DATETIME NOT NULL,
    last_used_at DATETIME NULL,
    last_ip VARCHAR(64) NOT NULL DEFAULT '',
    revoked_at DATETIME NULL,
    KEY app_passwords_user_idx (user_id),
    CONSTRAINT app_passwords_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS sessions (
    id VARCHAR(64) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
    user_id BIGINT NOT NULL,
    csrf_token VARCHAR(64) NOT NULL,
    nonce VARCHAR(64) NOT NULL,
    created_at DATETIME NOT NULL,
    expires_at DATETIME NOT NULL,
    KEY sessions_user_idx (user_id),
    KEY sessions_expires_idx (expires_at),
    CONSTRAINT sessions_user_fk FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS events (
    id BIGINT NOT NULL PRIMARY KEY,
    author_id BIGINT NOT NULL DEFAULT 0,
    status VARCHAR(20) NOT NULL,
    slug VARCHAR(255) COLLATE utf8mb4_bin NOT NULL,
    lang VARCHAR(10) NOT NULL,
    title VARCHAR(255) NOT NULL,
    description MEDIUMTEXT NOT NULL,
    excerpt MEDIUMTEXT NOT NULL,
    published_at DATETIME NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    start_at DATETIME NOT NULL,
    end_at DATETIME NOT NULL,
    timezone VARCHAR(64) NOT NULL DEFAULT '',
    all_day BOOLEAN NOT NULL DEFAULT 0,
    cost TEXT NOT NULL,
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
    parent_id BIGINT NULL,
    UNIQUE KEY events_slug_uq (slug),
    KEY events_start_idx (start_at, published_at, id),
    KEY events_status_start_idx (status, start_at),
    KEY events_end_idx (end_at),
    KEY events_author_idx (author_id),
    KEY events_parent_idx (parent_id),
    KEY events_published_idx (published_at, id),
    CONSTRAINT events_id_fk FOREIGN KEY (id) REFERENCES post_ids (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS venues (
    id BIGINT NOT NULL PRIMARY KEY,
    author_id BIGINT NOT NULL DEFAULT 0,
    status VARCHAR(20) NOT NULL,
    slug VARCHAR(255) COLLATE utf8mb4_bin NOT NULL,
    lang VARCHAR(10) NOT NULL,
    venue VARCHAR(255) NOT NULL,
    description MEDIUMTEXT NOT NULL,
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
    updated_at DATETIME NOT NULL,
    UNIQUE KEY venues_slug_uq (slug),
    KEY venues_status_published_idx (status, published_at, id),
    KEY venues_published_idx (published_at, id),
    KEY venues_author_idx (author_id),
    CONSTRAINT venues_id_fk FOREIGN KEY (id) REFERENCES post_ids (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS organizers (
    id BIGINT NOT NULL PRIMARY KEY,
    author_id BIGINT NOT NULL DEFAULT 0,
    status VARCHAR(20) NOT NULL,
    slug VARCHAR(255) COLLATE utf8mb4_bin NOT NULL,
    lang VARCHAR(10) NOT NULL,
    organizer VARCHAR(255) NOT NULL,
    description MEDIUMTEXT NOT NULL,
    phone VARCHAR(255) NOT NULL DEFAULT '',
    website VARCHAR(255) NOT NULL DEFAULT '',
    email VARCHAR(255) NOT NULL DEFAULT '',
    image_url VARCHAR(255) NOT NULL DEFAULT '',
    published_at DATETIME NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    UNIQUE KEY organizers_slug_uq (slug),
    KEY organizers_status_published_idx (status, published_at, id),
    KEY organizers_published_idx (published_at, id),
    KEY organizers_author_idx (author_id),
    CONSTRAINT organizers_id_fk FOREIGN KEY (id) REFERENCES post_ids (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

-- Categories and tags: terms with their own id space.
CREATE TABLE IF NOT EXISTS terms (
    id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    taxonomy VARCHAR(16) NOT NULL,
    name VARCHAR(255) NOT NULL,
    name_key VARCHAR(255) COLLATE utf8mb4_bin NOT NULL,
    slug VARCHAR(255) COLLATE utf8mb4_bin NOT NULL,
    description MEDIUMTEXT NOT NULL,
    parent_id BIGINT NOT NULL DEFAULT 0,
    term_group INT NOT NULL DEFAULT 0,
    lang VARCHAR(10) NOT NULL,
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    UNIQUE KEY terms_slug_uq (taxonomy, slug),
    UNIQUE KEY terms_name_uq (taxonomy, parent_id, name_key),
    KEY terms_name_idx (taxonomy, name_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS event_venues (
    event_id BIGINT NOT NULL,
    venue_id BIGINT NOT NULL,
    position INT NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, venue_id),
    KEY event_venues_venue_idx (venue_id, event_id),
    CONSTRAINT event_venues_event_fk FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
    CONSTRAINT event_venues_venue_fk FOREIGN KEY (venue_id) REFERENCES venues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS event_organizers (
    event_id BIGINT NOT NULL,
    organizer_id BIGINT NOT NULL,
    position INT NOT NULL DEFAULT 0,
    PRIMARY KEY (event_id, organizer_id),
    KEY event_organizers_organizer_idx (organizer_id, event_id),
    CONSTRAINT event_organizers_event_fk FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
    CONSTRAINT event_organizers_organizer_fk FOREIGN KEY (organizer_id) REFERENCES organizers (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS event_terms (
    event_id BIGINT NOT NULL,
    term_id BIGINT NOT NULL,
    PRIMARY KEY (event_id, term_id),
    KEY event_terms_term_idx (term_id, event_id),
    CONSTRAINT event_terms_event_fk FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE,
    CONSTRAINT event_terms_term_fk FOREIGN KEY (term_id) REFERENCES terms (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS event_translations (
    event_id BIGINT NOT NULL,
    lang VARCHAR(10) NOT NULL,
    title VARCHAR(255) NULL,
    description MEDIUMTEXT NULL,
    excerpt MEDIUMTEXT NULL,
    PRIMARY KEY (event_id, lang),
    CONSTRAINT event_translations_fk FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS venue_translations (
    venue_id BIGINT NOT NULL,
    lang VARCHAR(10) NOT NULL,
    venue VARCHAR(255) NULL,
    description MEDIUMTEXT NULL,
    address VARCHAR(255) NULL,
    city VARCHAR(255) NULL,
    PRIMARY KEY (venue_id, lang),
    CONSTRAINT venue_translations_fk FOREIGN KEY (venue_id) REFERENCES venues (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS organizer_translations (
    organizer_id BIGINT NOT NULL,
    lang VARCHAR(10) NOT NULL,
    organizer VARCHAR(255) NULL,
    description MEDIUMTEXT NULL,
    PRIMARY KEY (organizer_id, lang),
    CONSTRAINT organizer_translations_fk FOREIGN KEY (organizer_id) REFERENCES organizers (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
--bun:split

CREATE TABLE IF NOT EXISTS term_translations (
    term_id BIGINT NOT NULL,
    lang VARCHAR(10) NOT NULL,
    name VARCHAR(255) NULL,
    description MEDIUMTEXT NULL,
    PRIMARY KEY (term_id, lang),
    CONSTRAINT term_translations_fk FOREIGN KEY (term_id) REFERENCES terms (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
