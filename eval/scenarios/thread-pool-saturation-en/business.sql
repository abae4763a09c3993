-- This scenario's own rows of the shared eval business schema (biz_order, payment_record), on top of
-- ../background.sql: order-9310 never reached the table (its request timed out at the gateway).
INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES
  ('order-9309', 'u-2', 61.00, 'PAID', NULL, NULL, '2026-11-20 10:04:10', '2026-11-20 10:04:52');
