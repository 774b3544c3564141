-- Webhook deliveries (worker/webhooks/deliveries.ts): one row per event a merchant is sent, written
-- when the event is queued and after each try (outbox jobs, so a row follows its object even after
-- a crash), for the merchant console's "delivered / failing, next try at… / send again". A row
-- holds ids, the type and the delivery's state, never the event's body (the object's outbox has
-- it while it waits); the daily sweep deletes rows past the retention period.
CREATE TABLE webhook_deliveries (
  merchant_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  type TEXT NOT NULL,
  session_id TEXT,
  payment_id TEXT,
  status TEXT NOT NULL,
  tries INTEGER NOT NULL,
  last_status INTEGER,
  next_at INTEGER,
  created_at INTEGER NOT NULL,
  version INTEGER NOT NULL,
  owner TEXT NOT NULL,
  PRIMARY KEY (merchant_id, event_id)
);
CREATE INDEX deliveries_by_merchant ON webhook_deliveries (merchant_id, created_at DESC, event_id DESC);
CREATE INDEX deliveries_by_payment ON webhook_deliveries (merchant_id, payment_id);
CREATE INDEX deliveries_by_session ON webhook_deliveries (merchant_id, session_id);

-- The console's searches by amount and by the card's last four digits, each with its index (the
-- last four read from the row's view by a generated column). Operations have no card: their
-- column stays empty, there for the one listing query every table shares.
ALTER TABLE payments ADD COLUMN card_last4 TEXT GENERATED ALWAYS AS (json_extract(data, '$.card.last4')) VIRTUAL;
ALTER TABLE sessions ADD COLUMN card_last4 TEXT GENERATED ALWAYS AS (json_extract(data, '$.card.last4')) VIRTUAL;
ALTER TABLE operations ADD COLUMN card_last4 TEXT GENERATED ALWAYS AS (json_extract(data, '$.card.last4')) VIRTUAL;
CREATE INDEX payments_by_last4 ON payments (merchant_id, card_last4, created_at DESC, id DESC);
CREATE INDEX payments_by_amount ON payments (merchant_id, amount, created_at DESC, id DESC);
CREATE INDEX sessions_by_last4 ON sessions (merchant_id, card_last4, created_at DESC, id DESC);
