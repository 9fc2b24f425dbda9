// The one address rule of webhooks, AI providers and instance SMTP servers: private addresses are
// refused however they are written, IPv4 inside IPv6 included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress, resolveTarget, TargetRefusedError } from './outbound-targets.js';

describe('Outbound target addresses', () => {
  it('tells public addresses from private, loopback, link-local and reserved ones', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '2606:4700:4700::1111',
      '::ffff:8.8.8.8',
      '::ffff:808:808',
      '2002:808:808::1',
    ])
      assert.equal(isPublicAddress(address), true, address);
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fe80::1%eth0',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      // IPv4-compatible forms, as `[::127.0.0.1]` reads once a URL has parsed it.
      '::127.0.0.1',
      '::7f00:1',
      '::a9fe:a9fe',
      '::8.8.8.8',
      // IPv4-translated (RFC 2765), 6to4 and NAT64 forms of private addresses.
      '::ffff:0:7f00:1',
      '::ffff:0:10.0.0.1',
      '2002:7f00:1::1',
      '2002:a9fe:a9fe::',
      '64:ff9b::7f00:1',
      '64:ff9b:1::a00:1',
      // Teredo.
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      'not an ip',
    ]) {
      assert.equal(isPublicAddress(address), false, address);
    }
  });

  it('refuses a host that is or resolves to a private address unless private ones are allowed', async () => {
    for (const host of ['127.0.0.1', '[::1]', '::127.0.0.1', 'localhost', '2130706433']) {
      await assert.rejects(resolveTarget(host, false), TargetRefusedError, host);
    }
    assert.deepEqual(await resolveTarget('127.0.0.1', true), ['127.0.0.1']);
  });
});
