-- The house ledger: every table's journal entries, keyed by (table, seq), chained.
-- depends:

CREATE TABLE house_tables (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,
    created     TIMESTAMPTZ NOT NULL DEFAULT now(),
    head_seq    BIGINT NOT NULL DEFAULT 0,
    head_hash   TEXT NOT NULL DEFAULT repeat('0', 64),
    mode        TEXT NOT NULL DEFAULT '',
    last_seen   TIMESTAMPTZ
);

CREATE TABLE entries (
    table_id    TEXT NOT NULL REFERENCES house_tables(id),
    seq         BIGINT NOT NULL,
    prev        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    command_id  TEXT NOT NULL,
    kind        TEXT NOT NULL,
    mode        TEXT NOT NULL,
    at          TIMESTAMPTZ,  -- the table's clock at commit (NULL if it gave none)
    body        TEXT NOT NULL,
    received    TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, seq)
);

CREATE TABLE legs (
    table_id    TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    entry       INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    account     TEXT NOT NULL,
    amount      BIGINT NOT NULL,
    FOREIGN KEY (table_id, seq) REFERENCES entries(table_id, seq)
);
CREATE INDEX legs_by_account ON legs(account);
CREATE INDEX legs_by_entry ON legs(table_id, seq);

CREATE TABLE refusals (
    id          BIGSERIAL PRIMARY KEY,
    table_id    TEXT NOT NULL,
    seq         BIGINT,
    reason      TEXT NOT NULL,
    at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
