-- This scenario's own rows of the shared eval business schema (biz_order, payment_record), on top of
-- ../background.sql.
INSERT INTO biz_order (order_id, user_id, amount, payment_status, card_number, note, created_at, updated_at) VALUES
  ('order-8207', 'u-5', 46.00, 'PAID', NULL, NULL, '2026-11-20 10:20:50', '2026-11-20 10:20:55');
INSERT INTO payment_record (payment_id, order_id, channel, status, error_code, latency_ms, raw_payload, created_at, updated_at) VALUES
  ('pay-8207', 'order-8207', 'wechat', 'SUCCESS', NULL, 112, NULL, '2026-11-20 10:20:52', '2026-11-20 10:20:52');
