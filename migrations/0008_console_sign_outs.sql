-- Console sessions signed out before their hour ended (worker/console/session.ts): the session's
-- cookie is signed, not stored, so signing out clears the browser's copy and names the session
-- here, and a copy of the cookie taken before is refused until it would have expired anyway. The
-- id is a hash of the session's CSRF token, never the token itself; the retention sweep deletes
-- rows past their expiry.
CREATE TABLE console_sign_outs (
  session TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
