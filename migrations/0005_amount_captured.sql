-- A payment captured in part is found by the amount captured too (what the console shows of it),
-- read from the row's view by a generated column, with its index beside the amount's.
ALTER TABLE payments ADD COLUMN amount_captured TEXT GENERATED ALWAYS AS (json_extract(data, '$.amountCaptured')) VIRTUAL;
CREATE INDEX payments_by_amount_captured ON payments (merchant_id, amount_captured, created_at DESC, id DESC);
