-- This scenario's own rows of the shared eval business schema (biz_order, payment_record), on top of
-- ../background.sql.
INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES
  ('order-7041', 'u-2', 30.00, 'CREATED', NULL, NULL, '2026-11-20 10:20:00', '2026-11-20 10:20:00');
