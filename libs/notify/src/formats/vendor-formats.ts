import type { NotificationMessage } from '../notification-message';
import type { NotificationTarget } from '../notification-targets';
import { classifyDingTalkBody, dingtalkRequest } from './dingtalk-format';
import { classifyFeishuBody, feishuRequest } from './feishu-format';
import { BodyVerdict, OutboundRequest, RequestContext } from './outbound-request';
import { classifySlackBody, slackRequest } from './slack-format';
import { classifyWebhookBody, webhookRequest } from './webhook-format';
import { classifyWeComBody, wecomRequest } from './wecom-format';

/** The request a target's vendor documents for this message (signed anew per attempt: timestamps age). */
export function buildRequest(
  target: NotificationTarget,
  message: NotificationMessage,
  context: RequestContext,
): OutboundRequest {
  switch (target.kind) {
    case 'webhook':
      return webhookRequest(target, message, context);
    case 'slack':
      return slackRequest(target, message);
    case 'feishu':
      return feishuRequest(target, message, context);
    case 'dingtalk':
      return dingtalkRequest(target, message, context);
    case 'wecom':
      return wecomRequest(target, message);
  }
}

/** What a 2xx answer's body means for the target's vendor. */
export function classifyBody(target: NotificationTarget, text: string): BodyVerdict {
  switch (target.kind) {
    case 'webhook':
      return classifyWebhookBody();
    case 'slack':
      return classifySlackBody(text);
    case 'feishu':
      return classifyFeishuBody(text);
    case 'dingtalk':
      return classifyDingTalkBody(text);
    case 'wecom':
      return classifyWeComBody(text);
  }
}
