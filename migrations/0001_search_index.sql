-- The search index of payments and sessions (worker/search/). The Durable Objects are the source
-- of truth; these rows are written from their outbox after each change (seq orders them) and may
-- lag by a moment (README, "Finding payments and sessions").
CREATE TABLE payments (
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
-- Newest first, with the id as the tie-breaker of the cursor, for each filter.
CREATE INDEX payments_by_created ON payments (created_at DESC, id DESC);
CREATE INDEX payments_by_status ON payments (status, created_at DESC, id DESC);
CREATE INDEX payments_by_email ON payments (email, created_at DESC, id DESC);
CREATE INDEX payments_by_order ON payments (merchant_transaction_id);
CREATE INDEX payments_by_session ON payments (session_id);

CREATE TABLE payment_metadata (
  object_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (object_id, key)
);
CREATE INDEX payment_metadata_by_pair ON payment_metadata (key, value, object_id);

CREATE TABLE sessions (
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
CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
CREATE INDEX sessions_by_status ON sessions (status, created_at DESC, id DESC);
CREATE INDEX sessions_by_email ON sessions (email, created_at DESC, id DESC);
CREATE INDEX sessions_by_order ON sessions (merchant_transaction_id);

CREATE TABLE session_metadata (
  object_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (object_id, key)
);
CREATE INDEX session_metadata_by_pair ON session_metadata (key, value, object_id);
