-- Merchant profiles (worker/merchants/): the merchants a deployment serves besides the one its
-- variables describe (the default profile, `default`). A profile's secrets (secure key, AuthTokens,
-- webhook signing secrets) are one AES-GCM sealed column, never readable through any route; its API
-- keys are kept as SHA-256 hashes only (a key is shown once, when it is issued).
CREATE TABLE merchants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  status TEXT NOT NULL,
  profile TEXT NOT NULL,
  secrets TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX merchants_by_created ON merchants (created_at DESC, id DESC);

CREATE TABLE merchant_keys (
  hash TEXT PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  merchant_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX merchant_keys_by_merchant ON merchant_keys (merchant_id, created_at);

-- Every row of the search index belongs to one merchant: listings read only the caller's. Rows
-- written before profiles existed are the default profile's.
ALTER TABLE payments ADD COLUMN merchant_id TEXT NOT NULL DEFAULT 'default';
ALTER TABLE sessions ADD COLUMN merchant_id TEXT NOT NULL DEFAULT 'default';
ALTER TABLE operations ADD COLUMN merchant_id TEXT NOT NULL DEFAULT 'default';
CREATE INDEX payments_by_merchant ON payments (merchant_id, created_at DESC, id DESC);
CREATE INDEX sessions_by_merchant ON sessions (merchant_id, created_at DESC, id DESC);
CREATE INDEX operations_by_merchant ON operations (merchant_id, created_at DESC, id DESC);
