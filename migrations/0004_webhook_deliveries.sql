-- Webhook deliveries (worker/webhooks/deliveries.ts): one row per event the outbox tried to
-- deliver, written after each try (an outbox job, so the row follows the object even after a
-- crash), for the merchant console's "delivered / failing / next retry / send again". The event's
-- body is kept for a send-again; the daily sweep deletes rows past the retention period (it may
-- name a customer's email or the merchant's metadata).
CREATE TABLE webhook_deliveries (
  event_id TEXT PRIMARY KEY,
  merchant_id TEXT NOT NULL,
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
  body TEXT NOT NULL
);
CREATE INDEX deliveries_by_merchant ON webhook_deliveries (merchant_id, created_at DESC, event_id DESC);
CREATE INDEX deliveries_by_payment ON webhook_deliveries (merchant_id, payment_id);
CREATE INDEX deliveries_by_session ON webhook_deliveries (merchant_id, session_id);
