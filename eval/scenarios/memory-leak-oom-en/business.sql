-- This scenario's own rows of the shared eval business schema (biz_order, payment_record), on top of
-- ../background.sql.
INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES
  ('order-9042', 'u-7', 152.00, 'UNPAID', NULL, NULL, '2026-11-20 09:31:50', '2026-11-20 09:31:50');
