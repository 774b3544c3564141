-- Index rows are each merchant's own: keyed by (merchant_id, id), as the webhook deliveries are.
-- Keyed by id alone, a row written for one merchant's object took the place of another
-- merchant's row with the same id (a payment id the gateway gave another member, named in a
-- notification a merchant signed for its own session), and its metadata pairs joined the other
-- row's. SQLite cannot change a primary key: each table is made again, its rows and indexes with
-- it (the card and capture columns are generated, so added again, not copied).

CREATE TABLE payments_rebuilt (
  id TEXT NOT NULL,
  status TEXT NOT NULL,
  merchant_transaction_id TEXT NOT NULL,
  session_id TEXT,
  email TEXT,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL,
  merchant_id TEXT NOT NULL DEFAULT 'default',
  PRIMARY KEY (merchant_id, id)
);
INSERT INTO payments_rebuilt (id, status, merchant_transaction_id, session_id, email, amount, currency, created_at, updated_at, seq, data, merchant_id) SELECT id, status, merchant_transaction_id, session_id, email, amount, currency, created_at, updated_at, seq, data, merchant_id FROM payments;
CREATE TABLE payment_metadata_rebuilt (
  merchant_id TEXT NOT NULL,
  object_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (merchant_id, object_id, key)
);
INSERT INTO payment_metadata_rebuilt (merchant_id, object_id, key, value)
  SELECT COALESCE((SELECT r.merchant_id FROM payments r WHERE r.id = m.object_id), 'default'), m.object_id, m.key, m.value
  FROM payment_metadata m;
DROP TABLE payment_metadata;
DROP TABLE payments;
ALTER TABLE payments_rebuilt RENAME TO payments;
ALTER TABLE payment_metadata_rebuilt RENAME TO payment_metadata;
ALTER TABLE payments ADD COLUMN card_last4 TEXT GENERATED ALWAYS AS (json_extract(data, '$.card.last4')) VIRTUAL;
ALTER TABLE payments ADD COLUMN amount_captured TEXT GENERATED ALWAYS AS (json_extract(data, '$.amountCaptured')) VIRTUAL;
CREATE INDEX payments_by_created ON payments (created_at DESC, id DESC);
CREATE INDEX payments_by_status ON payments (status, created_at DESC, id DESC);
CREATE INDEX payments_by_email ON payments (email, created_at DESC, id DESC);
CREATE INDEX payments_by_order ON payments (merchant_transaction_id);
CREATE INDEX payments_by_session ON payments (session_id);
CREATE INDEX payments_by_merchant ON payments (merchant_id, created_at DESC, id DESC);
CREATE INDEX payments_by_last4 ON payments (merchant_id, card_last4, created_at DESC, id DESC);
CREATE INDEX payments_by_amount ON payments (merchant_id, amount, created_at DESC, id DESC);
CREATE INDEX payments_by_amount_captured ON payments (merchant_id, amount_captured, created_at DESC, id DESC);
CREATE INDEX payment_metadata_by_pair ON payment_metadata (merchant_id, key, value, object_id);

CREATE TABLE sessions_rebuilt (
  id TEXT NOT NULL,
  status TEXT NOT NULL,
  merchant_transaction_id TEXT NOT NULL,
  session_id TEXT,
  email TEXT,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL,
  merchant_id TEXT NOT NULL DEFAULT 'default',
  PRIMARY KEY (merchant_id, id)
);
INSERT INTO sessions_rebuilt (id, status, merchant_transaction_id, session_id, email, amount, currency, created_at, updated_at, seq, data, merchant_id) SELECT id, status, merchant_transaction_id, session_id, email, amount, currency, created_at, updated_at, seq, data, merchant_id FROM sessions;
CREATE TABLE session_metadata_rebuilt (
  merchant_id TEXT NOT NULL,
  object_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (merchant_id, object_id, key)
);
INSERT INTO session_metadata_rebuilt (merchant_id, object_id, key, value)
  SELECT COALESCE((SELECT r.merchant_id FROM sessions r WHERE r.id = m.object_id), 'default'), m.object_id, m.key, m.value
  FROM session_metadata m;
DROP TABLE session_metadata;
DROP TABLE sessions;
ALTER TABLE sessions_rebuilt RENAME TO sessions;
ALTER TABLE session_metadata_rebuilt RENAME TO session_metadata;
ALTER TABLE sessions ADD COLUMN card_last4 TEXT GENERATED ALWAYS AS (json_extract(data, '$.card.last4')) VIRTUAL;
CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
CREATE INDEX sessions_by_status ON sessions (status, created_at DESC, id DESC);
CREATE INDEX sessions_by_email ON sessions (email, created_at DESC, id DESC);
CREATE INDEX sessions_by_order ON sessions (merchant_transaction_id);
CREATE INDEX sessions_by_merchant ON sessions (merchant_id, created_at DESC, id DESC);
CREATE INDEX sessions_by_last4 ON sessions (merchant_id, card_last4, created_at DESC, id DESC);
CREATE INDEX session_metadata_by_pair ON session_metadata (merchant_id, key, value, object_id);

CREATE TABLE operations_rebuilt (
  id TEXT NOT NULL,
  status TEXT NOT NULL,
  merchant_transaction_id TEXT NOT NULL,
  session_id TEXT,
  email TEXT,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL,
  merchant_id TEXT NOT NULL DEFAULT 'default',
  PRIMARY KEY (merchant_id, id)
);
INSERT INTO operations_rebuilt (id, status, merchant_transaction_id, session_id, email, amount, currency, created_at, updated_at, seq, data, merchant_id) SELECT id, status, merchant_transaction_id, session_id, email, amount, currency, created_at, updated_at, seq, data, merchant_id FROM operations;
CREATE TABLE operation_metadata_rebuilt (
  merchant_id TEXT NOT NULL,
  object_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (merchant_id, object_id, key)
);
INSERT INTO operation_metadata_rebuilt (merchant_id, object_id, key, value)
  SELECT COALESCE((SELECT r.merchant_id FROM operations r WHERE r.id = m.object_id), 'default'), m.object_id, m.key, m.value
  FROM operation_metadata m;
DROP TABLE operation_metadata;
DROP TABLE operations;
ALTER TABLE operations_rebuilt RENAME TO operations;
ALTER TABLE operation_metadata_rebuilt RENAME TO operation_metadata;
ALTER TABLE operations ADD COLUMN card_last4 TEXT GENERATED ALWAYS AS (json_extract(data, '$.card.last4')) VIRTUAL;
CREATE INDEX operations_by_created ON operations (created_at DESC, id DESC);
CREATE INDEX operations_by_status ON operations (status, created_at DESC, id DESC);
CREATE INDEX operations_by_order ON operations (merchant_transaction_id);
CREATE INDEX operations_by_merchant ON operations (merchant_id, created_at DESC, id DESC);
CREATE INDEX operation_metadata_by_pair ON operation_metadata (merchant_id, key, value, object_id);
