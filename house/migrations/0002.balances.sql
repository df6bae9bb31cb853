-- Each table's balances by account, kept as entries arrive, so the live dashboard does not
-- sum every leg the house ever received at each shipment.
-- depends: 0001.house

CREATE TABLE balances (
    table_id    TEXT NOT NULL REFERENCES house_tables(id),
    account     TEXT NOT NULL,
    balance     BIGINT NOT NULL,
    PRIMARY KEY (table_id, account)
);

INSERT INTO balances (table_id, account, balance)
    SELECT table_id, account, sum(amount) FROM legs GROUP BY table_id, account;
