// kill -9 trials against a real `blume serve` (issue #20): the server is killed at a random
// moment of an archive ingest, of a run of promote and rollback calls, or of a docs build, then
// started again on the same data directory, and after every restart:
// - no partial release: every release serves every file it was uploaded with (or its build made),
//   and on PostgreSQL the file rows and blobs of every release add up (on PGlite, which only the
//   server may open, the same database check runs once the trials are over);
// - the live pointer and the promotion log are those of the last answered call or of the call the
//   kill cut short, nothing else, and the production host serves the live release;
// - every build has ended, a release exists exactly for the builds that succeeded;
// - no build sandbox outlives the server, no scratch entry of the dead process is left, no blob
//   store temporary file is left behind, and every blob no release references is named by the
//   killed upload's intent (on PGlite the restart swept them all).
// Trials are split between the embedded database and PostgreSQL (when TEST_DATABASE_URL is set):
// `npm test` runs 20 (decision 0132), BLUME_RELIABILITY_KILL_TRIALS=100 the full count. Each
// group's first ingest, promote run and build is killed early in its measured duration, and the group
// fails unless a kill cut each kind short. BLUME_RELIABILITY_SEED replays a run: it is printed at the
// start of each group.
import assert from 'node:assert/strict';
import { createCipheriv, createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import { blobIntents } from '../../src/deploy/tables.js';
import { multipartBody, siteArchive, tarball } from '../helpers/archives.js';
import { createTestDatabase, testDatabases, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { buildProcesses, callApi, getOnHost, runBlume, startBlume, type RunningServer } from '../helpers/process.js';
import { basicAuth } from '../helpers/deploy.js';
import { deploymentProblems, filesUnder, unreferencedBlobs } from './invariants.js';

/** 20 by default, 10 per database (decision 0132); BLUME_RELIABILITY_KILL_TRIALS sets the count. */
const TOTAL_TRIALS = Number(process.env.BLUME_RELIABILITY_KILL_TRIALS ?? 20);
/** Of each group's trials: most are ingests and promotes; builds cost the most (a sandbox per build). */
const MIX = { ingest: 0.44, promote: 0.4, build: 0.16 };
const SITE = 'docs';
const FILES_PER_UPLOAD = 60;
const SEED = Number(process.env.BLUME_RELIABILITY_SEED ?? Date.now() % 1_000_000);

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Upload `n`'s files: an index naming it, compressible pages and incompressible data (new blobs every time). */
function uploadFiles(n: number): Map<string, Buffer> {
  const files = new Map<string, Buffer>([['index.html', Buffer.from(`<h1>upload ${n}</h1>`)]]);
  const key = createHash('sha256').update(`upload ${n}`).digest().subarray(0, 16);
  for (let i = 0; i < FILES_PER_UPLOAD; i++) {
    if (i % 3 === 0) files.set(`pages/${i}.html`, Buffer.from(`<p>upload ${n} page ${i}</p>\n`.repeat(400)));
    else
      files.set(
        `data/${i}.bin`,
        createCipheriv('aes-128-ctr', key, Buffer.alloc(16, i)).update(Buffer.alloc(48 * 1024)),
      );
  }
  return files;
}

/** Markdown that builds in about a second here. */
async function docsSource(): Promise<Buffer> {
  const paragraph = 'Blume builds *Markdown* into a site: `code`, [links](index.md), lists and tables.\n\n'.repeat(30);
  const pages = Array.from({ length: 300 }, (_, i) => ({
    name: `page-${i}.md`,
    content: `# Page ${i}\n\n${paragraph}`,
  }));
  return tarball([{ name: 'index.md', content: '# Home\n' }, ...pages]);
}

interface Release {
  id: string;
  file_count: number;
  build_id: string | null;
}

interface Listing {
  releases: Release[];
  aliases: { live: string | null; auth: string };
  rollback_to: string | null;
}

interface Build {
  id: string;
  state: string;
  release: string | null;
}

type Kind = keyof typeof MIX;

function trialKinds(count: number, random: () => number): Kind[] {
  const ingest = Math.round(count * MIX.ingest);
  const promote = Math.round(count * MIX.promote);
  const kinds: Kind[] = [
    ...Array<Kind>(ingest).fill('ingest'),
    ...Array<Kind>(promote).fill('promote'),
    ...Array<Kind>(count - ingest - promote).fill('build'),
  ];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  return kinds;
}

const groupTrials = (index: number): number =>
  Math.floor(TOTAL_TRIALS / testDatabases.length) + (index < TOTAL_TRIALS % testDatabases.length ? 1 : 0);

// The two databases' trials run side by side: each group waits on its server's restarts.
describe('kill -9 trials', { concurrency: true }, () => {
  for (const [index, database] of testDatabases.entries()) {
    // The groups run side by side, but a group's own tests one after the other: the last one stops the server.
    describe(`kill -9 trials [${database}]`, { concurrency: false }, () => {
      const random = seeded(SEED + index);
      let dataDir: string;
      let postgres: TestDatabase | undefined;
      let env: Record<string, string>;
      let server: RunningServer;
      let token: string;
      let auth: string;
      /** The live chain as the answered calls left it: live first, then what rollbacks return to. */
      let chain: string[] = [];
      /** Releases already checked file by file (releases never change). */
      const verified = new Set<string>();
      /** Releases whose upload was answered 201: they must survive any later kill. */
      const answered = new Set<string>();
      let uploads = 0;
      let builtFileCount = 0;
      /** The slowest and quickest unbroken ingest, and the unbroken build. */
      const timings = { ingestMs: 0, quickestIngestMs: Infinity, buildMs: 0, restartsMs: [] as number[] };
      const outcomes: Record<string, number> = {};

      const api = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
        callApi(server, method, url, { authorization: `Bearer ${token}`, ...headers }, body);

      const archiveOf = async (n: number): Promise<Buffer> => siteArchive(Object.fromEntries(uploadFiles(n)));

      function uploadArchive(archive: Buffer): Promise<Response> {
        const body = multipartBody('archive', archive);
        return fetch(`${server.url}/api/deploy/${SITE}`, {
          method: 'POST',
          headers: { connection: 'close', ...body.headers, authorization: `Bearer ${token}` },
          body: new Uint8Array(body.payload),
        });
      }

      async function uploadSource(): Promise<Response> {
        const body = multipartBody('archive', await docsSource(), 'docs.tar');
        return fetch(`${server.url}/api/deploy/${SITE}/source`, {
          method: 'POST',
          headers: { connection: 'close', ...body.headers, authorization: `Bearer ${token}` },
          body: new Uint8Array(body.payload),
        });
      }

      async function start(): Promise<void> {
        const began = Date.now();
        server = await startBlume([], env);
        timings.restartsMs.push(Date.now() - began);
      }

      before(async () => {
        dataDir = await mkdtemp(path.join(tmpdir(), 'blume-kill9-'));
        env = { BLUME_DATA_DIR: dataDir, BLUME_PUBLIC_URL: 'http://blume.test' };
        if (database === 'postgres') {
          postgres = await createTestDatabase('postgres');
          // Another node may run a build, so a dead node's build is failed once its lease runs out.
          env = { ...env, DATABASE_URL: postgres.url!, BLUME_BUILD_LEASE_SECONDS: '2' };
        }
        console.log(`# kill -9 [${database}]: seed ${SEED + index} (BLUME_RELIABILITY_SEED=${SEED} replays the run)`);
        await start();
        const admin = await runBlume(
          ['create-admin', '-u', 'admin', '-e', 'admin@example.test', '-p', 'correct horse battery'],
          env,
        );
        assert.equal(admin.status, 0, admin.stderr);
        const login = await callApi(
          server,
          'POST',
          '/api/auth/login',
          {},
          { login: 'admin', password: 'correct horse battery' },
        );
        const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
        assert.equal(
          (await callApi(server, 'POST', '/api/sites', { cookie }, { id: SITE, kind: 'static' })).status,
          201,
        );
        token = String(
          (await callApi(server, 'POST', `/api/sites/${SITE}/deploy-tokens`, { cookie }, { name: 'ci' })).body.token,
        );

        // Unbroken runs first: releases to promote between, and how long an ingest and a build take.
        for (let i = 0; i < 3; i++) {
          const archive = await archiveOf(++uploads);
          const began = Date.now();
          const response = await uploadArchive(archive);
          const text = await response.text();
          assert.equal(response.status, 201, text);
          timings.ingestMs = Math.max(timings.ingestMs, Date.now() - began);
          timings.quickestIngestMs = Math.min(timings.quickestIngestMs, Date.now() - began);
          answered.add((JSON.parse(text) as Release).id);
        }
        const began = Date.now();
        const built = await uploadSource();
        const text = await built.text();
        assert.equal(built.status, 201, text.slice(0, 2000));
        timings.buildMs = Date.now() - began;
        builtFileCount = (JSON.parse(text) as Release).file_count;
        const first = [...answered][0]!;
        assert.equal((await api('POST', `/api/deploy/${SITE}/promote`, { release: first })).status, 200);
        chain = [first];
        const listing = (await api('GET', `/api/deploy/${SITE}/releases`)).body as unknown as Listing;
        auth = basicAuth(listing.aliases.auth);
      });

      after(async () => {
        if (postgres)
          outcomes['unreferenced blobs (swept an hour on)'] = (
            await unreferencedBlobs(postgres.handle.db, path.join(dataDir, 'blobs'))
          ).unreferenced;
        await server?.stop();
        await postgres?.drop();
        await rm(dataDir, { recursive: true, force: true });
        const restarts = [...timings.restartsMs].sort((a, b) => a - b);
        console.log(
          `# kill -9 [${database}]: ${JSON.stringify(outcomes)}; ingest ${timings.ingestMs} ms, build ${timings.buildMs} ms; restart median ${restarts[restarts.length >> 1]} ms, max ${restarts.at(-1)} ms`,
        );
      });

      /** Every file of a release, through its preview host: the upload it came from, or the reference build. */
      async function verifyRelease(release: Release): Promise<void> {
        const host = `r-${release.id}--${SITE}.blume.test`;
        const index = await getOnHost(server, host, '/', { authorization: auth });
        assert.equal(index.status, 200, `release ${release.id} serves its index`);
        if (release.build_id) {
          assert.equal(
            release.file_count,
            builtFileCount,
            `release ${release.id} of build ${release.build_id} has every built file`,
          );
          assert.match(index.body.toString(), /Home/);
          for (const page of [0, 150, 299])
            assert.equal(
              (await getOnHost(server, host, `/page-${page}/`, { authorization: auth })).status,
              200,
              `release ${release.id} serves page ${page}`,
            );
        } else {
          const n = Number(/upload (\d+)/.exec(index.body.toString())?.[1]);
          const files = uploadFiles(n);
          assert.equal(release.file_count, files.size, `release ${release.id} (upload ${n}) has every file`);
          for (const [name, content] of files) {
            const answer = await getOnHost(server, host, `/${name}`, {
              authorization: auth,
              'accept-encoding': 'identity',
            });
            assert.equal(answer.status, 200, `release ${release.id} serves ${name}`);
            assert.ok(answer.body.equals(content), `release ${release.id} serves the bytes of ${name}`);
          }
        }
        verified.add(release.id);
      }

      /** The invariants after a restart; `cut` is the chain the call in flight at the kill would have left. */
      async function checkInvariants(cut: string[] | undefined): Promise<void> {
        // Scratch entries of the dead process went at start; the blob store holds no half-written file.
        assert.deepEqual(
          await readdir(path.join(dataDir, 'tmp')).catch(() => []),
          [],
          'no scratch entry is left in <data>/tmp',
        );
        const temporary = (await filesUnder(path.join(dataDir, 'blobs'))).filter((name) =>
          path.basename(name).startsWith('.tmp-'),
        );
        assert.deepEqual(temporary, [], 'no temporary file is left in the blob store');

        // Every build has ended (at once on PGlite; when its lease runs out on PostgreSQL).
        const buildList = await eventually(
          'every build to end',
          async () => {
            const list = (await api('GET', `/api/deploy/${SITE}/builds?page_size=100`)).body.builds as Build[];
            return list.every((build) => build.state !== 'queued' && build.state !== 'running') ? list : undefined;
          },
          15_000,
        );
        // An input whose upload died before its build was queued is named by its intent: swept at
        // the restart on PGlite, an hour on on PostgreSQL (another node may still be storing it).
        const intended = postgres
          ? new Set(
              (await postgres.handle.db.select({ keys: blobIntents.keys }).from(blobIntents)).flatMap(
                (row) => row.keys,
              ),
            )
          : new Set<string>();
        const inputsLeft = async (): Promise<string[]> =>
          (await filesUnder(path.join(dataDir, 'blobs', 'build-inputs'))).filter(
            (name) => !intended.has(`build-inputs/${name}`),
          );
        // A build that succeeded just before the kill, its input not yet removed, is still its job's:
        // the input goes when that job's lease runs out (at the restart on PGlite, a lease later on
        // PostgreSQL, as the build's own end does).
        const inputs = postgres
          ? await eventually(
              'the inputs of ended builds to go',
              async () => ((await inputsLeft()).length === 0 ? [] : undefined),
              15_000,
            ).catch(inputsLeft)
          : await inputsLeft();
        assert.deepEqual(inputs, [], 'ended builds leave no input behind');

        const listing = (await api('GET', `/api/deploy/${SITE}/releases`)).body as unknown as Listing;
        const ids = new Set(listing.releases.map((release) => release.id));
        for (const id of answered) assert.ok(ids.has(id), `release ${id}, answered 201 before a kill, is still there`);
        for (const build of buildList) {
          if (build.state === 'succeeded')
            assert.ok(build.release && ids.has(build.release), `succeeded build ${build.id} has its release`);
          else
            assert.ok(
              !listing.releases.some((release) => release.build_id === build.id),
              `${build.state} build ${build.id} left no release`,
            );
        }
        for (const release of listing.releases) if (!verified.has(release.id)) await verifyRelease(release);

        // The pointers are those of the last answered call, or of the one the kill cut short.
        const actual = [listing.aliases.live, listing.rollback_to];
        const matches = (candidate: string[]) =>
          actual[0] === (candidate[0] ?? null) && actual[1] === (candidate[1] ?? null);
        if (!matches(chain)) {
          assert.ok(
            cut && matches(cut),
            `live ${actual[0]} with rollback to ${actual[1]} is neither the answered state (${chain.slice(0, 2).join(', ')}) nor the cut call's (${cut?.slice(0, 2).join(', ')})`,
          );
          chain = cut;
        }
        const production = await getOnHost(server, `${SITE}.blume.test`, '/');
        const live = listing.releases.find((release) => release.id === listing.aliases.live);
        assert.equal(production.status, live ? 200 : 404);
        if (live && !live.build_id)
          assert.equal(
            production.body.toString(),
            (await getOnHost(server, `r-${live.id}--${SITE}.blume.test`, '/', { authorization: auth })).body.toString(),
          );

        if (postgres) {
          assert.deepEqual(await deploymentProblems(postgres.handle.db, path.join(dataDir, 'blobs')), []);
          // Another node may still be storing them: blobs of a dead upload wait for the hourly sweep, named by its intent.
          assert.equal(
            (await unreferencedBlobs(postgres.handle.db, path.join(dataDir, 'blobs'))).untracked,
            0,
            'every unreferenced blob is named by an upload intent',
          );
        }
      }

      async function killAndRestart(): Promise<void> {
        await server.stop('SIGKILL');
        // bubblewrap's --die-with-parent (or setpriv's death signal) takes the sandbox down with it.
        await eventually(
          'the build sandbox to die with the server',
          () => (buildProcesses(dataDir).length === 0 ? true : undefined),
          10_000,
        );
        await start();
      }

      async function ingestTrial(delay: number): Promise<void> {
        const archive = await archiveOf(++uploads);
        const upload = uploadArchive(archive).then(
          async (response) => ({ status: response.status, body: (await response.json().catch(() => ({}))) as Release }),
          () => undefined,
        );
        await sleep(delay);
        await killAndRestart();
        const answer = await upload;
        if (answer?.status === 201) answered.add(answer.body.id);
        count(answer ? `ingest answered ${answer.status}` : 'ingest cut');
        await checkInvariants(undefined);
      }

      async function promoteTrial(delay: number): Promise<void> {
        const releases = ((await api('GET', `/api/deploy/${SITE}/releases`)).body as unknown as Listing).releases.map(
          (release) => release.id,
        );
        let cut: string[] | undefined;
        let calls = 0;
        let killed = false;
        const run = (async () => {
          while (!killed) {
            const rollback = chain.length > 1 && random() < 0.4;
            const target = releases[Math.floor(random() * releases.length)]!;
            const next = rollback ? chain.slice(1) : target === chain[0] ? chain : [target, ...chain];
            const ifMatch: Record<string, string> = random() < 0.5 ? { 'if-match': `"${chain[0]}"` } : {};
            cut = next;
            try {
              const answer = rollback
                ? await api('POST', `/api/deploy/${SITE}/rollback`, undefined, ifMatch)
                : await api('POST', `/api/deploy/${SITE}/promote`, { release: target }, ifMatch);
              assert.equal(answer.status, 200, JSON.stringify(answer.body));
              assert.equal((answer.body.aliases as { live: string }).live, next[0]);
            } catch (error) {
              if (killed) return;
              throw error;
            }
            chain = next;
            cut = undefined;
            calls++;
          }
        })();
        await sleep(delay);
        killed = true;
        await killAndRestart();
        await run;
        count(cut ? 'promote cut' : 'promote between calls');
        outcomes['promote calls answered'] = (outcomes['promote calls answered'] ?? 0) + calls;
        await checkInvariants(cut);
      }

      async function buildTrial(delay: number): Promise<void> {
        const upload = uploadSource().then(
          (response) => response.status,
          () => undefined,
        );
        await sleep(delay);
        const sandboxes = buildProcesses(dataDir).length;
        await killAndRestart();
        const status = await upload;
        count(
          status
            ? `build answered ${status}`
            : sandboxes > 0
              ? 'build cut while its sandbox ran'
              : 'build cut outside its sandbox',
        );
        await checkInvariants(undefined);
      }

      function count(outcome: string): void {
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      }

      // A restart is ~4.5 CPU-seconds under tsx: minutes on a free machine, far more on a busy one.
      it(
        `survives ${groupTrials(index)} kills during ingests, promotes and builds`,
        { timeout: 1_800_000 },
        async () => {
          const kinds = trialKinds(groupTrials(index), random);
          for (const [trial, kind] of kinds.entries()) {
            // A kind's first kill lands in the first half of its quickest run, so it cuts the call short;
            // the others anywhere up to a little after its slowest, so some land just after the answer.
            const early = kinds.indexOf(kind) === trial;
            try {
              if (kind === 'ingest')
                await ingestTrial(
                  Math.floor(random() * (early ? timings.quickestIngestMs * 0.5 : timings.ingestMs * 1.2)),
                );
              else if (kind === 'promote') await promoteTrial(Math.floor(random() * 300));
              else await buildTrial(Math.floor(random() * timings.buildMs * (early ? 0.5 : 1.2)));
            } catch (error) {
              throw new Error(`trial ${trial + 1} (${kind}) failed; server output:\n${server.output()}`, {
                cause: error,
              });
            }
          }
          const cut = {
            ingest: outcomes['ingest cut'] ?? 0,
            promote: outcomes['promote cut'] ?? 0,
            build:
              (outcomes['build cut while its sandbox ran'] ?? 0) + (outcomes['build cut outside its sandbox'] ?? 0),
          };
          for (const kind of new Set(kinds))
            assert.ok(cut[kind] > 0, `a kill cut a ${kind} short (seed ${SEED + index}): ${JSON.stringify(outcomes)}`);
        },
      );

      it('leaves the embedded database consistent', { skip: database !== 'pglite' }, async () => {
        assert.equal(await server.stop(), 0);
        const handle: DatabaseHandle = await openDatabase({ pgliteDir: path.join(dataDir, 'db') });
        try {
          assert.deepEqual(await deploymentProblems(handle.db, path.join(dataDir, 'blobs')), []);
          // Each start swept what the killed process was storing.
          assert.deepEqual(await unreferencedBlobs(handle.db, path.join(dataDir, 'blobs')), {
            unreferenced: 0,
            untracked: 0,
          });
        } finally {
          await handle.close();
        }
      });
    });
  }
});
