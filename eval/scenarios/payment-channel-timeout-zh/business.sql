-- This scenario's own rows of the shared eval business schema (biz_order, payment_record), on top of
-- ../background.sql.
INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES
  ('order-7021', 'u-5', 99.00, 'PAY_TIMEOUT', NULL, NULL, '2026-11-20 10:15:00', '2026-11-20 10:16:00'),
  ('order-7022', 'u-6', 45.00, 'PAY_TIMEOUT', NULL, NULL, '2026-11-20 10:18:00', '2026-11-20 10:19:00'),
  ('order-7023', 'u-7', 12.00, 'PAID', NULL, NULL, '2026-11-20 10:20:00', '2026-11-20 10:21:00');
INSERT INTO payment_record (payment_id, order_id, channel, status, error_code, latency_ms, raw_payload, created_at, updated_at) VALUES
  ('pay-7021', 'order-7021', 'alipay', 'TIMEOUT', 'ERR_TIMEOUT', 30000, NULL, '2026-11-20 10:15:00', '2026-11-20 10:15:00'),
  ('pay-7022', 'order-7022', 'alipay', 'TIMEOUT', 'ERR_TIMEOUT', 30012, NULL, '2026-11-20 10:18:00', '2026-11-20 10:18:00'),
  ('pay-7023', 'order-7023', 'wechat', 'SUCCESS', NULL, 140, NULL, '2026-11-20 10:20:00', '2026-11-20 10:20:00');
