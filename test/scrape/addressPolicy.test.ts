import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config.js';
import { allowEntryProblem, createAddressPolicy } from '../../src/scrape/addressPolicy.js';

describe('scrape address policy', () => {
  const policy = createAddressPolicy([]);

  it('judges an IPv6 address that embeds an IPv4 one by that address, in every form', () => {
    const private4 = [
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:7f00:1',
      '::ffff:0:127.0.0.1', // IPv4-translated
      '::ffff:0:a9fe:a9fe', // 169.254.169.254, the cloud metadata service
      '::127.0.0.1', // IPv4-compatible
      '::a00:1',
      '64:ff9b::10.0.0.1', // NAT64
      '64:ff9b::c0a8:101',
      '64:FF9B:0:0:0:0:7F00:1',
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:c0a8:101:1::42', // 6to4 of 192.168.1.1
    ];
    for (const address of private4) {
      expect(policy.refusal(address), address).to.match(/private, loopback, link-local or reserved/);
    }
    const public4 = ['::ffff:0:8.8.8.8', '64:ff9b::8.8.4.4', '2002:808:808::1', '::ffff:1.1.1.1'];
    for (const address of public4) expect(policy.refusal(address), address).to.equal(null);
    // A plain public IPv6 address embeds nothing and stays allowed; a private one stays refused.
    expect(policy.refusal('2a00:1450:4001:80b::200e')).to.equal(null);
    expect(policy.refusal('fd12:3456::1')).to.match(/private/);
  });

  it('lets an allowed IPv4 network through in its IPv6 forms too', () => {
    const allowing = createAddressPolicy(['127.0.0.0/8']);
    expect(allowing.refusal('2002:7f00:1::')).to.equal(null);
    expect(allowing.refusal('::ffff:0:127.0.0.2')).to.equal(null);
    expect(allowing.refusal('2002:a00:1::')).to.match(/private/);
  });

  it('accepts host names, addresses and CIDRs in the allow list, and says what is wrong with anything else', () => {
    for (const entry of [
      'intranet.example',
      'wiki_1.corp',
      'localhost',
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      '[::1]',
      'fd00::/8',
    ]) {
      expect(allowEntryProblem(entry), entry).to.equal(null);
    }
    expect(allowEntryProblem('localhost:8080')).to.equal('a port is not part of a host: leave it out');
    expect(allowEntryProblem('127.0.0.1:80')).to.equal('a port is not part of a host: leave it out');
    expect(allowEntryProblem('[::1]:8080')).to.equal('a port is not part of a host: leave it out');
    expect(allowEntryProblem('http://intranet/')).to.equal('a host, not a URL');
    expect(allowEntryProblem('10.0.0.0/33')).to.equal('the prefix length must be from 0 to 32');
    expect(allowEntryProblem('fd00::/129')).to.equal('the prefix length must be from 0 to 128');
    expect(allowEntryProblem('intranet/8')).to.equal('a prefix length needs an IP address before it');
    expect(allowEntryProblem('10.0.0.0/8/9')).to.equal('a CIDR has one "/"');
    expect(allowEntryProblem('intra net')).to.equal('not a host name, an IP address or a CIDR');
  });

  it('stops start-up on a bad allow-list entry, naming it', () => {
    expect(() => loadConfig({ SCRAPE_ALLOWED_HOSTS: '127.0.0.1, 10.0.0.0/40' })).to.throw(
      ConfigError,
      'SCRAPE_ALLOWED_HOSTS has "10.0.0.0/40": the prefix length must be from 0 to 32',
    );
    expect(
      loadConfig({ SCRAPE_ALLOWED_HOSTS: '127.0.0.1, intranet.example' }).scrapeAllowedHosts,
    ).to.deep.equal(['127.0.0.1', 'intranet.example']);
  });
});
