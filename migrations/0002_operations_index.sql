-- Merchant operations (repeats, invoice regenerations) in the search index, like payments and
-- sessions: GET /v1/operations lists them (needs_attention=true: those whose outcome is still open
-- after every try). Written from the operation's outbox after each change.
CREATE TABLE operations (
  id TEXT PRIMARY KEY,
  status TEXT NOT NULL,
  merchant_transaction_id TEXT NOT NULL,
  session_id TEXT,
  email TEXT,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX operations_by_created ON operations (created_at DESC, id DESC);
CREATE INDEX operations_by_status ON operations (status, created_at DESC, id DESC);
CREATE INDEX operations_by_order ON operations (merchant_transaction_id);

CREATE TABLE operation_metadata (
  object_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (object_id, key)
);
CREATE INDEX operation_metadata_by_pair ON operation_metadata (key, value, object_id);
