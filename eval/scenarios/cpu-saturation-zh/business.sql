-- This scenario's own rows of the shared eval business schema (biz_order, payment_record), on top of
-- ../background.sql.
INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES
  ('order-8123', 'u-4', 88.00, 'PAYING', NULL, NULL, '2026-11-20 10:22:40', '2026-11-20 10:22:48');
INSERT INTO payment_record (payment_id, order_id, channel, status, error_code, latency_ms, raw_payload, created_at, updated_at) VALUES
  ('pay-8123', 'order-8123', 'alipay', 'PROCESSING', NULL, 0, NULL, '2026-11-20 10:22:38', '2026-11-20 10:22:38');
