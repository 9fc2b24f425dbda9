// Host routing. The portal answers on its own host; every site answers on `<site>.<domain>`, its
// stage alias on `stage--<site>.<domain>` and each release on `r-<release>--<site>.<domain>`.
// In single-instance mode one community site answers on any host.

export type HostTarget =
  | { kind: 'portal' }
  | { kind: 'site'; site: string }
  | { kind: 'stage'; site: string }
  | { kind: 'preview'; site: string; release: string };

const SITE_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;
const PREVIEW_LABEL = /^r-([a-z0-9]{12})--(.+)$/;

/** Host header value without port, lower-cased; IPv6 literals keep their brackets. */
export function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.indexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

export function isSiteLabel(label: string): boolean {
  return SITE_LABEL.test(label) && !label.includes('--');
}

/**
 * Classifies a host name. Anything that is not a direct subdomain of the sites domain is the portal
 * (so the portal also answers on an IP address); a subdomain that is not a valid site label is
 * treated as an unknown site.
 */
export function classifyHost(name: string, sitesDomain: string): HostTarget {
  const suffix = `.${sitesDomain}`;
  if (!name.endsWith(suffix)) return { kind: 'portal' };
  const label = name.slice(0, -suffix.length);
  if (label.includes('.')) return { kind: 'site', site: '' };
  const preview = PREVIEW_LABEL.exec(label);
  if (preview)
    return isSiteLabel(preview[2]!)
      ? { kind: 'preview', site: preview[2]!, release: preview[1]! }
      : { kind: 'site', site: '' };
  if (label.startsWith('stage--')) {
    const site = label.slice('stage--'.length);
    return isSiteLabel(site) ? { kind: 'stage', site } : { kind: 'site', site: '' };
  }
  return { kind: 'site', site: isSiteLabel(label) ? label : '' };
}

/** Scheme and port under which a client reached us; absolute URLs in answers reuse them. */
export interface UrlBase {
  protocol: 'http:' | 'https:';
  /** Empty for the scheme's default port. */
  port: string;
}

/**
 * The client's scheme and port, from a request whose `protocol` and `host` Fastify has already
 * taken from X-Forwarded-Proto/-Host when the peer is a trusted proxy (BLUME_TRUST_PROXY). Behind a
 * TLS-terminating proxy that is https on the default port, whatever BLUME_PUBLIC_URL says; see
 * docs/decisions/0014-forwarded-urls.md.
 */
export function requestUrlBase(request: { protocol: string; host: string }): UrlBase {
  const protocol = request.protocol === 'https' ? 'https:' : 'http:';
  const match = /:(\d+)$/.exec(
    request.host.startsWith('[') ? request.host.slice(request.host.indexOf(']') + 1) : request.host,
  );
  const port = match?.[1] ?? '';
  const isDefault = (protocol === 'https:' && port === '443') || (protocol === 'http:' && port === '80');
  return { protocol, port: isDefault ? '' : port };
}

/** The URL of a site host: `<label>.<sites domain>` under the given scheme and port. */
export function siteOrigin(base: UrlBase, sitesDomain: string, label: string): string {
  return `${base.protocol}//${label}.${sitesDomain}${base.port ? `:${base.port}` : ''}`;
}
