import type { SectionProps } from '../settings/sectionProps.ts';
import { WebhookList } from './WebhookList.tsx';
import { WebhookPage } from './WebhookPage.tsx';
import './webhooks.css';

/** Settings → Webhooks: `/settings/webhooks` lists the endpoints, `/settings/webhooks/{id}` is one with its delivery log. */
export default function WebhooksSettings({ rest }: SectionProps) {
  const [id] = rest.split('/').filter(Boolean);
  return id ? <WebhookPage key={id} id={id} /> : <WebhookList />;
}
