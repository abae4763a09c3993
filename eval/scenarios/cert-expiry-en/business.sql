-- This scenario's own rows of the shared eval business schema (biz_order, payment_record), on top of
-- ../background.sql.
INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES
  ('order-7061', 'u-1', 66.00, 'FAILED', NULL, NULL, '2026-11-20 10:18:00', '2026-11-20 10:18:00');
INSERT INTO payment_record (payment_id, order_id, channel, status, error_code, latency_ms, raw_payload, created_at, updated_at) VALUES
  ('pay-7061', 'order-7061', 'wechat', 'FAILED', 'ERR_TLS', 35, NULL, '2026-11-20 10:18:00', '2026-11-20 10:18:00');
