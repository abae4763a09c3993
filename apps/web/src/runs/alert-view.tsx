import type { AlertLabels, SessionAlertView } from '@app/contracts';
import { formatTime } from '../format';
import { TableScroll } from '../ui/feedback';

/** The badge an alert-started session carries wherever it is listed or shown. */
export function AlertBadge() {
  return (
    <span class="badge alert" title="Started by an alert, not by a person">
      ALERT
    </span>
  );
}

/** An alert's labels as name=value chips: untrusted text, shown as text only (never a link). */
export function AlertLabelList({ labels }: { labels: AlertLabels }) {
  const names = Object.keys(labels).sort((a, b) =>
    a === 'alertname' ? -1 : b === 'alertname' ? 1 : a.localeCompare(b),
  );
  return (
    <ul class="alert-labels" aria-label="Alert labels">
      {names.map((name) => (
        <li key={name}>
          <code>
            {name}={labels[name]}
          </code>
        </li>
      ))}
    </ul>
  );
}

/** An alert group's session: its labels and the notifications it received, with what each did. */
export function SessionAlertPanel({ alert }: { alert: SessionAlertView }) {
  return (
    <section class="alert-panel" aria-label="Alert group">
      <p>
        <AlertBadge /> Started by an alert group; its labels (as the alert sent them):
      </p>
      <AlertLabelList labels={alert.labels} />
      {alert.notifications.length > 0 && (
        <TableScroll label="Alert notifications">
          <table>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Status</th>
                <th scope="col">Outcome</th>
                <th scope="col">Alerts</th>
              </tr>
            </thead>
            <tbody>
              {alert.notifications.map((notification, index) => (
                <tr key={`${notification.received_at}-${index}`}>
                  <td>
                    <time dateTime={notification.received_at}>{formatTime(notification.received_at)}</time>
                  </td>
                  <td>{notification.status}</td>
                  <td>
                    <code>{notification.outcome}</code>
                  </td>
                  <td>{notification.alert_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
