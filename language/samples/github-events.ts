import { Rng, WeightedIndex, zipfWeights } from './random.js';
import { TimeFormatter, TimeSampler } from './time.js';
import type { SampleOptions } from './options.js';

const FIRST = ['alex', 'sam', 'jo', 'kim', 'lee', 'max', 'ana', 'li', 'raj', 'eva', 'tom', 'nina', 'omar', 'yuki', 'ivan', 'lea', 'paul', 'mia', 'chen', 'sara', 'dev', 'noah', 'emma', 'luca'];
const LAST = ['smith', 'kumar', 'mueller', 'garcia', 'tanaka', 'novak', 'silva', 'dubois', 'kowalski', 'nguyen', 'rossi', 'jensen', 'okafor', 'park', 'cohen', 'ivanova'];
const SUFFIX = ['', '', '', 'dev', 'codes', 'io', '42', '7', 'x', 'hq', '-oss', '99'];
const BOTS: ReadonlyArray<readonly [string, number]> = [
    ['dependabot[bot]', 6], ['github-actions[bot]', 5], ['renovate[bot]', 3], ['k8s-ci-robot', 3], ['codecov[bot]', 1], ['pre-commit-ci[bot]', 1],
];

const KNOWN_REPOS = [
    'kubernetes/kubernetes', 'kubernetes/website', 'kubernetes/test-infra', 'kubernetes-sigs/kind', 'kubernetes/minikube',
    'microsoft/vscode', 'microsoft/TypeScript', 'facebook/react', 'vercel/next.js', 'nodejs/node', 'golang/go',
    'rust-lang/rust', 'python/cpython', 'grafana/grafana', 'prometheus/prometheus', 'open-telemetry/opentelemetry-collector',
    'open-telemetry/opentelemetry-demo', 'axiomhq/axiom-js', 'axiomhq/axiom-go', 'axiomhq/cli', 'hashicorp/terraform',
    'elastic/elasticsearch', 'apache/kafka', 'denoland/deno', 'sveltejs/svelte', 'tailwindlabs/tailwindcss',
];
const PROJECT_WORDS = ['api', 'server', 'web', 'cli', 'utils', 'dotfiles', 'blog', 'infra', 'sdk', 'bot', 'dashboard', 'docs', 'plugin', 'engine', 'lab', 'app'];
const COMMIT_MESSAGES = [
    'Fix typo in README', 'Update dependencies', 'Add tests for parser', 'Refactor config loading', 'Bump version to {v}',
    'Fix flaky test', 'Improve error messages', 'Add CI workflow', 'Remove unused imports', 'Handle nil pointer in handler',
    'Merge pull request #{n} from {u}/feature', 'docs: clarify installation steps', 'chore(deps): bump lodash from 4.17.20 to 4.17.21',
    'feat: add dark mode', 'fix: race condition in cache', 'perf: avoid extra allocation', 'ci: pin action versions', 'Initial commit',
];
const ISSUE_TITLES = [
    'Crash when config file is empty', 'Memory leak in watcher', 'Add support for ARM64', 'Docs: example does not compile',
    'Flaky test: TestScheduler', 'Pod stuck in Terminating state', 'Feature request: export to CSV', 'Error message is misleading',
    'Upgrade to Go 1.22', 'Performance regression in 1.4', 'kubectl apply fails with server-side apply', 'Dark mode renders incorrectly',
    'Timeout when connecting through proxy', 'Deprecate old API version', 'Broken link in contributing guide',
];
const LABELS: ReadonlyArray<{ name: string; color: string }> = [
    { name: 'bug', color: 'd73a4a' }, { name: 'enhancement', color: 'a2eeef' }, { name: 'documentation', color: '0075ca' },
    { name: 'good first issue', color: '7057ff' }, { name: 'help wanted', color: '008672' }, { name: 'question', color: 'd876e3' },
    { name: 'kind/bug', color: 'e11d21' }, { name: 'kind/feature', color: 'c7def8' }, { name: 'sig/node', color: 'd2b48c' },
    { name: 'needs-triage', color: 'ededed' }, { name: 'priority/important-soon', color: 'eb6420' }, { name: 'lifecycle/stale', color: '795548' },
];

interface GithubPools {
    actors: string[];
    actorIndex: WeightedIndex;
    repos: string[];
    repoIndex: WeightedIndex;
}

function buildPools(rng: Rng): GithubPools {
    const humans = new Set<string>();
    while (humans.size < 3000) {
        const style = rng.int(3);
        const name = style === 0 ? `${rng.pick(FIRST)}${rng.pick(LAST)}${rng.pick(SUFFIX)}`
            : style === 1 ? `${rng.pick(FIRST)}-${rng.pick(LAST)}`
                : `${rng.pick(FIRST)}${rng.range(1, 9999)}`;
        humans.add(name);
    }
    const humanList = [...humans];
    const actors = [...BOTS.map(b => b[0]), ...humanList];
    const weights = [...BOTS.map(b => b[1] * 20), ...zipfWeights(humanList.length, 0.8)];
    const repos = new Set<string>(KNOWN_REPOS);
    while (repos.size < 400) repos.add(`${rng.pick(humanList)}/${rng.pick(PROJECT_WORDS)}${rng.chance(0.5) ? '-' + rng.pick(PROJECT_WORDS) : ''}`);
    const repoList = [...repos];
    return { actors, actorIndex: new WeightedIndex(weights), repos: repoList, repoIndex: new WeightedIndex(zipfWeights(repoList.length, 1.1)) };
}

/** github-push-event events; see GITHUB_PUSH_EVENT for the fields. */
export function* generateGithubPushEvents(options: SampleOptions): Generator<Record<string, unknown>> {
    const { rows, seed, end, days, sysTime } = options;
    const rng = new Rng(seed ^ 0x9057);
    const setup = rng.fork(3);
    const pools = buildPools(setup);
    const time = new TimeSampler(end, days, setup);
    const fmt = new TimeFormatter();
    const sysFmt = new TimeFormatter();
    let eventId = 30_000_000_000 + setup.int(1_000_000_000);
    let pushId = 15_000_000_000 + setup.int(1_000_000_000);
    for (let i = 0; i < rows; i++) {
        const t = time.at((i + rng.next()) / rows);
        const actor = pools.actors[pools.actorIndex.sample(rng)];
        const isBot = actor.endsWith('[bot]') || actor === 'k8s-ci-robot';
        const size = isBot ? 1 : Math.min(20, 1 + Math.floor(rng.logNormal(0.6, 1.1)));
        const commits: Array<Record<string, unknown>> = [];
        for (let c = 0; c < size; c++) {
            const message = rng.pick(COMMIT_MESSAGES)
                .replace('{v}', `${rng.int(5)}.${rng.int(20)}.${rng.int(10)}`)
                .replace('{n}', String(rng.range(1, 30000)))
                .replace('{u}', actor);
            commits.push({
                sha: rng.hex(40),
                author: { name: actor, email: `${actor.replace(/\[bot\]$/, '')}@users.noreply.github.com` },
                message,
                distinct: rng.next() < 0.95,
                url: '',
            });
        }
        const repo = pools.repos[pools.repoIndex.sample(rng)];
        for (const c of commits) c.url = `https://api.github.com/repos/${repo}/commits/${c.sha}`;
        const branch = isBot ? `dependabot/npm_and_yarn/${rng.pick(['lodash', 'axios', 'express', 'semver'])}-${rng.int(9)}.${rng.int(20)}.${rng.int(9)}`
            : rng.next() < 0.55 ? 'main' : rng.next() < 0.3 ? 'master' : `feature/${rng.pick(PROJECT_WORDS)}-${rng.hex(4)}`;
        eventId += 1 + rng.int(50);
        pushId += 1 + rng.int(20);
        const ev: Record<string, unknown> = {
            _time: fmt.format(t, rng.int(1_000_000)),
            id: String(eventId),
            actor,
            repo,
            push_id: pushId,
            size,
            distinct_size: commits.filter(c => c.distinct).length,
            ref: `refs/heads/${branch}`,
            head: commits[commits.length - 1].sha,
            before: rng.hex(40),
            commits,
        };
        if (sysTime) ev._sysTime = sysFmt.format(t + 1000 + rng.next() * 60_000);
        yield ev;
    }
}

/** github-issues-event events; see GITHUB_ISSUES_EVENT for the fields. */
export function* generateGithubIssuesEvents(options: SampleOptions): Generator<Record<string, unknown>> {
    const { rows, seed, end, days, sysTime } = options;
    const rng = new Rng(seed ^ 0x155e);
    const setup = rng.fork(4);
    const pools = buildPools(setup);
    const time = new TimeSampler(end, days, setup);
    const fmt = new TimeFormatter();
    const sysFmt = new TimeFormatter();
    let eventId = 30_000_000_000 + setup.int(1_000_000_000);
    const nextNumber = new Map<string, number>();
    for (let i = 0; i < rows; i++) {
        const t = time.at((i + rng.next()) / rows);
        const actor = pools.actors[pools.actorIndex.sample(rng)];
        const repo = pools.repos[pools.repoIndex.sample(rng)];
        const u = rng.next();
        const action = u < 0.5 ? 'opened' : u < 0.85 ? 'closed' : u < 0.9 ? 'reopened' : 'labeled';
        let number: number;
        if (action === 'opened') {
            number = (nextNumber.get(repo) ?? 1000 + rng.int(120_000)) + 1;
            nextNumber.set(repo, number);
        } else {
            const top = nextNumber.get(repo) ?? 1000 + rng.int(120_000);
            number = Math.max(1, top - rng.int(Math.min(top, 5000)));
        }
        const labels: Array<Record<string, unknown>> = [];
        const labelCount = rng.next() < 0.3 ? 0 : 1 + rng.int(3);
        for (let l = 0; l < labelCount; l++) {
            const label = LABELS[rng.int(LABELS.length)];
            if (!labels.some(x => x.name === label.name)) labels.push({ name: label.name, color: label.color, default: label.name === 'bug' || label.name === 'enhancement' });
        }
        eventId += 1 + rng.int(50);
        const ev: Record<string, unknown> = {
            _time: fmt.format(t, rng.int(1_000_000)),
            id: String(eventId),
            actor,
            repo,
            action,
            number,
            title: rng.pick(ISSUE_TITLES),
            state: action === 'closed' ? 'closed' : 'open',
            comments: action === 'opened' ? 0 : Math.floor(rng.logNormal(2, 1)),
            labels,
        };
        if (rng.next() < 0.25) ev.milestone = { number: 1 + rng.int(40), title: `v1.${25 + rng.int(8)}` };
        if (sysTime) ev._sysTime = sysFmt.format(t + 1000 + rng.next() * 60_000);
        yield ev;
    }
}
