import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Bus } from './bus/bus.js';
import type { Clock } from './commands/context.js';
import {
  actionAggregate,
  conversationAggregate,
  onboardingAggregate,
  settingsAggregate,
  taskAggregate,
  type TaskCommands,
} from './commands/aggregates.js';
import { createCommandService } from './commands/commandService.js';
import type { Config } from './config.js';
import { ConfigError, isEmbedded } from './config.js';
import { lockDataDir } from './dataDirLock.js';
import {
  eventLogPath,
  openBus,
  openEventStore,
  openRateLimiter,
  openReadStore,
  RATE_LIMIT_WINDOW_MS,
} from './adapters.js';
import type { RateLimitClass, RateLimiter, RateLimitPolicy } from './rateLimit/rateLimiter.js';
import type { EventStore } from './eventStore/eventStore.js';
import type { ComponentHealth, HealthCheck } from './health.js';
import { createKnowledgeUseCases, type KnowledgeUseCases } from './knowledge/knowledgeUseCases.js';
import { createKnowledgeBase, type KnowledgeBase } from './knowledge/knowledgeBase.js';
import { createMetrics, instrumentedModels, type Metrics } from './metrics/metrics.js';
import { createModels } from './models/fromConfig.js';
import { createAddressPolicy } from './scrape/addressPolicy.js';
import { VECTORS_PROJECTION } from './knowledge/vectorProjector.js';
import { checkAll, type OptionalComponent } from './health.js';
import { projectionProgress, type ProjectionProgress } from './projections/progress.js';
import type { Logger } from './log.js';
import type { ProjectionEngine } from './projections/engine.js';
import type { ReadModels } from './projections/readModels.js';
import type { ProjectionRegistry } from './projections/registry.js';
import { createProjectionStack } from './projections/stack.js';
import { conversationsProjection } from './projections/conversationsProjection.js';
import { createConversations, type Conversations } from './conversations/conversations.js';
import {
  createConversationPurgeScheduler,
  type ConversationPurgeScheduler,
} from './workers/conversationPurge.js';
import { createSessionStore, type SessionStore } from './users/sessions.js';
import { builtinTools } from './tools/builtinTools.js';
import { createToolRegistry, type ToolRegistry } from './tools/registry.js';
import { createTools, type Tools as AssistantTools } from './tools/tools.js';
import { createChat, DEFAULT_SYSTEM_PROMPT, type Chat } from './chat/chat.js';
import { createLiveTurns } from './chat/liveTurns.js';
import { toolTaskIdsOf } from './chat/turnEvents.js';
import { DomainError } from './domain/shared/index.js';
import { createUsers, type Users } from './users/users.js';
import { createSettings, type Settings } from './settings/settings.js';
import { createOnboarding, type Onboarding } from './onboarding/onboarding.js';
import type { ReadStore } from './readStore/readStore.js';
import type { SqliteReadStore } from './readStore/sqliteReadStore.js';
import { createParsePool, type ParsePool } from './parsing/worker/parsePool.js';
import { VERSION } from './version.js';
import type { JobRegistry, JobType } from './workers/jobs.js';
import { createJobRegistry } from './workers/jobs.js';
import { purgeReactor } from './workers/purgeReactor.js';
import { createReactorRunner, type ReactorRunner } from './workers/reactors.js';
import { createScrubber, type Scrubber } from './workers/scrubber.js';
import { createTaskWatchdog } from './workers/taskWatchdog.js';
import { createTaskWorker } from './workers/taskWorker.js';
import { createMembership, workersHealth } from './workers/members.js';
import { openBlobStore } from './blobStore/openBlobStore.js';
import type { BlobStore } from './blobStore/blobStore.js';
import { ALL_ROLES, type Role } from './roles.js';
import { createReadStoreSnapshots, type SnapshotStore } from './commands/snapshots.js';
import { composeParts, projectionsOf, purgeTypesOf, type ModuleDeclaration } from './moduleDeclaration.js';
import { tasksModule, tasksParts } from './workers/tasksModule.js';
import { createAccess } from './knowledge/access.js';
import { knowledgeModule, knowledgeParts } from './knowledge/knowledgeModule.js';
import { conversationsModule } from './conversations/conversationsModule.js';
import { toolsModule, toolsParts } from './tools/toolsModule.js';
import { usersModule } from './users/usersModule.js';
import { settingsModule } from './settings/settingsModule.js';
import { onboardingModule, onboardingParts } from './onboarding/onboardingModule.js';
import { TASKS } from './projections/tasksProjection.js';
export interface RuntimeOptions {
  log: Logger;
  /** Job types this process can run (the product's, and tests' own). */
  jobs?: readonly JobType[];
  clock?: Clock;
}

export interface Runtime {
  config: Config;
  log: Logger;
  version: string;
  clock: Clock;
  /** The process's Prometheus metrics (`GET /metrics`). */
  metrics: Metrics;
  eventStore: EventStore;
  bus: Bus;
  readStore: ReadStore;
  registry: ProjectionRegistry;
  readModels: ReadModels;
  projections: ProjectionEngine;
  /** Event → effect processors (task dispatch, purges); they run in the worker role. */
  reactors: ReactorRunner;
  /** Saved aggregate states for long streams. */
  snapshots: SnapshotStore;
  /** Makes deleted content unrecoverable from the stores' files, batching deletions. */
  scrubber: Scrubber;
  tasks: TaskCommands;
  jobs: JobRegistry;
  /** Parses documents in worker threads (started on first use). */
  parser: ParsePool;
  /** True when every port is embedded: one process owns the data folder. */
  embedded: boolean;
  start(roles?: readonly Role[]): Promise<void>;
  stop(): Promise<void>;
  health(): Promise<ComponentHealth[]>;
  /** Where the projections stand: what readiness and `/health/stats` both report. */
  projectionProgress(): Promise<ProjectionProgress>;
  /**
   * Read-your-writes: waits until the named followers of the log (read-model projections, or
   * `vectors` for the index search reads) have applied it up to `position`, at most `timeoutMs`;
   * resolves with the names of those that had not.
   */
  behind(position: number, options: { projections: readonly string[]; timeoutMs: number }): Promise<string[]>;
  knowledge: KnowledgeBase;
  /** What the HTTP routes, the tools and the CLI do with the knowledge base. */
  library: KnowledgeUseCases;
  /** Users of the Assistant API, their credentials and roles. */
  users: Users;
  /** Login sessions of the Assistant API. */
  sessions: SessionStore;
  /** Conversations of the Assistant API's users. */
  conversations: Conversations;
  /** Purges deleted conversations when they are due (runs in the worker role). */
  conversationPurge: ConversationPurgeScheduler;
  /** The assistant's tools, their calls and the pending actions that wait for confirmation. */
  tools: AssistantTools;
  chat: Chat;
  /** The assistant's settings (persona, language, tools and their policies), changed by onboarding and admins. */
  settings: Settings;
  /** Onboarding sessions of the Assistant API's users. */
  onboarding: Onboarding;
  /** Per-user request limits of the Assistant API, and the policy of each class. */
  rateLimits: { limiter: RateLimiter; policies: Record<RateLimitClass, RateLimitPolicy> };
}

/** The product's modules, as they declare themselves: the runtime composes them. */
export const MODULES: readonly ModuleDeclaration[] = [
  tasksModule,
  knowledgeModule,
  conversationsModule,
  toolsModule,
  usersModule,
  settingsModule,
  onboardingModule,
];

/**
 * The embedded store's in-memory search index: building for some seconds after a start (FTS5
 * answers meanwhile, slower). Not required: search is right either way, only not yet at full speed.
 */
function searchIndexChecks(readStore: ReadStore): HealthCheck[] {
  const store = readStore as Partial<Pick<SqliteReadStore, 'textIndexHealth'>>;
  const health = store.textIndexHealth?.bind(readStore);
  return health ? [{ name: 'search_index', required: false, check: async () => health() }] : [];
}

/**
 * The composition root: picks an adapter for each port from the configuration and wires the
 * command side, projections, workers and health checks together. Nothing starts until `start`.
 */
export async function createRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const { log } = options;
  const clock = options.clock ?? (() => new Date());
  const embedded = isEmbedded(config);
  // Embedded: one process per data folder, so its leases survive its own restarts (a crash does
  // not leave projections waiting for a dead lease). Otherwise every process is a distinct owner.
  const unlock = embedded && config.eventStore === 'file' ? lockDataDir(config.dataDir) : null;
  const owner = embedded ? 'embedded' : `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  let stores: { bus: Bus; eventStore: EventStore; readStore: ReadStore; blobs: BlobStore };
  try {
    const opened = await openBus(config, log);
    stores = {
      bus: opened,
      eventStore: await openEventStore(config, {
        bus: config.bus === 'nats' ? opened : undefined,
        log: log.child({ component: 'event_store' }),
      }),
      readStore: await openReadStore(config, log.child({ component: 'read_store' })),
      blobs: await openBlobStore(config, log),
    };
  } catch (error) {
    unlock?.();
    throw error;
  }
  const { bus, eventStore, readStore, blobs } = stores;
  const rateLimiter = await openRateLimiter(config, log.child({ component: 'rate_limits' }));
  const {
    registry,
    readModels,
    engine: projections,
  } = createProjectionStack({
    eventStore,
    readStore,
    projections: projectionsOf(MODULES),
    owner,
    log: log.child({ component: 'projections' }),
  });
  const snapshots = createReadStoreSnapshots(readStore);
  const scrubber = createScrubber({
    eventStore,
    readStore,
    waitForReadModels: (position) => projections.waitFor(position, { timeoutMs: 30_000 }),
    delayMs: config.scrubDelayMs,
    log: log.child({ component: 'scrubber' }),
  });
  const parser = createParsePool({
    size: config.parseWorkers,
    timeoutMs: config.parseTimeoutMs,
    maxMemoryMb: config.parseMaxMemoryMb,
    maxQueue: config.parseWorkers * 16,
    // A request waiting longer is better told to come back (503, Retry-After) than left hanging.
    maxQueueWaitMs: 30_000,
    memoryBudgetBytes: config.parseMemoryBudgetBytes,
    // Measured after the worker's own full collection: ordinary documents leave it within ~40 MB of
    // its warm footprint (a 54-page PDF 27 MB, a 200-page PDF 39 MB, a 50-page DOCX 7 MB), and a
    // replacement costs ~50-65 MB more than that until it settles, so recycling pays only above it;
    // a large document leaves hundreds of MB that only ending the thread gives back, also when its
    // footprint after the collection looks small (its heap stays committed): a job estimated at a
    // quarter of the default budget or more ends its worker.
    recycle: { aboveBytes: 64 * 1024 * 1024, afterJobs: 5_000, afterCostBytes: 128 * 1024 * 1024 },
    tableCaps: {
      maxRows: config.parseMaxRows,
      maxRowFields: config.parseMaxRowFields,
      maxFieldChars: config.parseMaxFieldChars,
    },
    log: log.child({ component: 'parser' }),
    services: {
      // Parse workers share the cores: one OCR thread each is enough to keep them busy.
      ocrWorkers: 1,
      openai: config.openaiBaseUrl
        ? {
            baseUrl: config.openaiBaseUrl,
            apiKey: config.openaiApiKey,
            llmModel: config.llmModel,
            visionModel: config.visionModel,
            timeoutMs: config.modelTimeoutMs,
          }
        : null,
    },
  });

  const metrics = createMetrics();
  const models = instrumentedModels(createModels(config, log.child({ component: 'models' })), metrics);
  const tasks = createCommandService(taskAggregate, { eventStore, clock });
  const zipLimits = {
    maxEntries: config.zipMaxEntries,
    maxTotalBytes: config.zipMaxTotalBytes,
    maxEntryBytes: config.maxUploadBytes,
    maxRatio: config.zipMaxRatio,
  };
  const knowledge = createKnowledgeBase({
    purgeTask: (taskId, caller) => tasks.execute('PurgeTask', { taskId }, caller),
    dataDir: config.dataDir,
    maxUploadBytes: config.maxUploadBytes,
    exactSearchBelow: config.vectorExactBelow,
    scanThreadFrom: config.vectorScanThreadFrom,
    searchWeights: config.searchWeights,
    milvus: config.vectorStore === 'milvus' ? { url: config.milvusUrl!, token: config.milvusToken } : null,
    owner,
    eventStore,
    readStore,
    readModels,
    blobs,
    claimTimeoutMs: config.taskClaimTimeoutMs,
    engineTimeoutMs: config.engineTimeoutMs,
    waitForProjections: (position, names, timeoutMs) =>
      projections.waitFor(position, { projections: names, timeoutMs }),
    parser,
    ...models,
    observeIngestion: (timings) => metrics.observeIngestion(timings),
    zipLimits,
    scrape: {
      policy: createAddressPolicy(config.scrapeAllowedHosts),
      maxBytes: config.scrapeMaxBytes,
      maxRedirects: config.scrapeMaxRedirects,
      userAgent: config.scrapeUserAgent,
    },
    clock,
    newId: randomUUID,
    log: log.child({ component: 'knowledge' }),
  });
  const actions = createCommandService(actionAggregate, { eventStore, clock });
  const library = createKnowledgeUseCases({
    documents: knowledge.documents,
    tasks,
    blobs: knowledge.blobs,
    eventStore,
    readModels,
    workQueues: { health: () => bus.health(), startWithinMs: config.engineTimeoutMs },
    search: knowledge.search,
    answer: knowledge.answer,
    access: createAccess({ readModels }),
    zipLimits,
    log: log.child({ component: 'knowledge' }),
  });
  // Tools need the settings (their policies) and settings need the tools (names to check): the
  // registry is filled once the services its tools use exist, and read only after start-up.
  let toolRegistry: ToolRegistry | null = null;
  const toolInfo = () => toolRegistry?.list() ?? [];
  const settings = createSettings({
    commands: createCommandService(settingsAggregate, { eventStore, clock }),
    eventStore,
    tools: toolInfo,
    configuredMaxTokens: config.llmMaxTokens,
    baseSystemPrompt: DEFAULT_SYSTEM_PROMPT,
  });
  const onboardingCommands = createCommandService(onboardingAggregate, { eventStore, clock });
  const onboarding = createOnboarding({
    commands: onboardingCommands,
    settings,
    tasks,
    tools: toolInfo,
    newId: randomUUID,
  });
  const conversationCommands = createCommandService(conversationAggregate, { eventStore, snapshots, clock });
  const users = createUsers({ eventStore, readModels, clock });
  const sessions = createSessionStore({ readStore, clock, ttlMs: config.sessionTtlMs });
  const conversations = createConversations({
    commands: conversationCommands,
    readModels,
    newId: randomUUID,
    purgeAfterMs: config.conversationPurgeAfterMs,
  });
  const conversationPurge = createConversationPurgeScheduler({
    conversations,
    readModels,
    leases: readStore,
    owner,
    clock,
    log: log.child({ component: 'conversation_purge' }),
    intervalMs: config.conversationPurgeIntervalMs,
    async purgeDerived(conversationId, caller) {
      for (const taskId of await toolTaskIdsOf(readModels, conversationId)) {
        await tasks.execute('PurgeTask', { taskId }, caller).catch((error: unknown) => {
          // A task still running 30 days on is left (and said): its stream is not the conversation's.
          if (!(error instanceof DomainError)) throw error;
          log.warn({ conversationId, taskId, reason: error.code }, 'tool task of a purged conversation kept');
        });
      }
    },
  });
  toolRegistry = createToolRegistry(
    builtinTools({
      knowledge: library,
      readModels,
      tasks,
      conversations,
      eventStore,
    }),
  );
  const tools = createTools({
    registry: toolRegistry,
    policyOf: (tool) => settings.policyOf(tool),
    approvalOf: (tool) => settings.approvalOf(tool),
    tasks,
    actions,
    eventStore,
    readModels,
    clock,
    newId: randomUUID,
    actionExpiryMs: config.actionExpiryMs,
  });
  const chat = createChat({
    conversations,
    tools,
    chatModel: models.chatModel,
    mode: config.llmModel && config.openaiBaseUrl ? config.llmToolCalling : 'local',
    live: createLiveTurns(),
    log: log.child({ component: 'chat' }),
    maxToolRounds: config.chatMaxToolRounds,
    acceptsImages: config.llmAcceptsImages,
    turnTimeoutMs: config.chatTurnTimeoutMs,
    caughtUp: (position) =>
      projections.waitFor(position, {
        projections: [conversationsProjection.name],
        timeoutMs: config.readYourWritesTimeoutMs,
      }),
    async defaults() {
      const { systemPrompt, maxTokens } = await settings.assistantSettings();
      return { systemPrompt, maxTokens };
    },
  });
  const required = (name: OptionalComponent): boolean => config.readyRequires.includes(name);
  const parts = composeParts([
    tasksParts({ bus }),
    knowledgeParts(knowledge, required),
    toolsParts({ actions, tasks, conversations: conversationCommands, registry: toolRegistry }),
    onboardingParts({ onboarding, commands: onboardingCommands }),
  ]);
  const reactors = createReactorRunner({
    eventStore,
    readStore,
    owner,
    log: log.child({ component: 'reactors' }),
    reactors: [
      purgeReactor({ eventStore, snapshots, scrubber, purgeTypes: purgeTypesOf(MODULES) }),
      ...parts.reactors,
    ],
  });
  const jobs = createJobRegistry([...(options.jobs ?? []), ...parts.jobs]);
  const workerId = `${hostname()}:${process.pid}`;
  const worker = createTaskWorker({
    bus,
    tasks,
    jobs,
    leases: readStore,
    workerId,
    log: log.child({ component: 'worker' }),
    heartbeatMs: config.taskHeartbeatMs,
    claimTimeoutMs: config.taskClaimTimeoutMs,
  });
  let membership: ReturnType<typeof createMembership> | null = null;
  const watchdog = createTaskWatchdog({
    readModels,
    tasks,
    bus,
    jobs,
    leases: readStore,
    clock,
    log: log.child({ component: 'watchdog' }),
    stallTimeoutMs: config.taskStallTimeoutMs,
  });

  const checks: HealthCheck[] = [
    { name: 'event_store', required: true, check: () => eventStore.health() },
    { name: 'read_store', required: true, check: () => readStore.health() },
    { name: 'bus', required: true, check: () => bus.health() },
    {
      name: 'projections',
      required: true,
      async check() {
        const progress = await projectionProgress(projections, eventStore);
        return { healthy: progress.state === 'live', reason: progress.reason };
      },
    },
    { name: 'blob_store', required: true, check: () => blobs.health() },
    {
      name: 'workers',
      required: required('workers'),
      check: () =>
        workersHealth(
          readStore,
          jobs.all().map((job) => job.name),
          clock(),
        ),
    },
    ...parts.checks,
    ...searchIndexChecks(readStore),
  ];

  metrics.readFrom({
    async openTasks() {
      const [pending, running] = await Promise.all([
        readModels.count(TASKS, { status: 'pending' }),
        readModels.count(TASKS, { status: 'running' }),
      ]);
      return { pending, running };
    },
    async projectionLag() {
      const [head, positions] = await Promise.all([eventStore.headPosition(), projections.positions()]);
      return positions.map((position) => ({
        projection: position.name,
        events: Math.max(0, head - Math.max(0, position.position)),
      }));
    },
  });

  return {
    config,
    log,
    version: VERSION,
    clock,
    metrics,
    eventStore,
    bus,
    readStore,
    registry,
    readModels,
    projections,
    reactors,
    snapshots,
    scrubber,
    tasks,
    jobs,
    parser,
    embedded,
    async start(roles = ALL_ROLES) {
      await registry.init();
      // Every process says it is alive, whatever its roles: workers by their queues, so readiness
      // anywhere can tell a queue no worker consumes, and claims of a dead one are taken over.
      membership = createMembership({
        readStore,
        member: {
          id: owner === 'embedded' ? `embedded:${hostname()}:${process.pid}` : owner,
          host: hostname(),
          pid: process.pid,
          roles: [...roles],
          queues: roles.includes('worker') ? jobs.all().map((job) => job.name) : [],
        },
        clock,
        log: log.child({ component: 'membership' }),
        heartbeatMs: config.taskHeartbeatMs,
        timeoutMs: config.taskClaimTimeoutMs,
      });
      await membership.start();
      if (roles.includes('projector')) await projections.start();
      if (knowledge.vectorRoles.some((role) => roles.includes(role))) await knowledge.startVectors();
      if (roles.includes('worker')) {
        await reactors.start();
        worker.start();
        watchdog.start();
        conversationPurge.start();
      }
    },
    async stop() {
      await membership?.stop();
      watchdog.stop();
      conversationPurge.stop();
      await worker.stop();
      await reactors.stop();
      await knowledge.stop();
      await parser.close();
      await scrubber.flush();
      await projections.stop();
      await bus.close();
      await eventStore.close();
      await readStore.close();
      await rateLimiter.close();
      await blobs.close();
      unlock?.();
    },
    health: () => checkAll(checks),
    projectionProgress: () => projectionProgress(projections, eventStore),
    async behind(position, { projections: names, timeoutMs }) {
      const reached = await Promise.all(
        names.map((name) =>
          // A store that cannot say where it stands (down) has not shown it caught up: the write
          // stands, and the answer says the next read may be stale.
          (name === VECTORS_PROJECTION
            ? knowledge.waitForVectors(position, timeoutMs)
            : projections.waitFor(position, { projections: [name], timeoutMs })
          ).catch(() => false),
        ),
      );
      return names.filter((_, i) => !reached[i]);
    },
    knowledge,
    library,
    users,
    sessions,
    conversations,
    conversationPurge,
    tools,
    chat,
    settings,
    onboarding,
    rateLimits: {
      limiter: rateLimiter,
      policies: {
        chat: { limit: config.rateLimitChatPerMinute, windowMs: RATE_LIMIT_WINDOW_MS },
        tools: { limit: config.rateLimitToolsPerMinute, windowMs: RATE_LIMIT_WINDOW_MS },
      },
    },
  };
}

/** What the CLI's tools use beside a possibly running server: no lock, no bus, no workers. */
export interface Tools {
  eventStore: EventStore;
  readStore: ReadStore;
  registry: ProjectionRegistry;
  readModels: ReadModels;
  projections: ProjectionEngine;
  close(): Promise<void>;
}

export async function openTools(config: Config, log: Logger): Promise<Tools> {
  // A tool inspects data that exists: a mistyped DATA_DIR must not be answered with a new, empty store.
  if (config.eventStore === 'file' && !existsSync(eventLogPath(config.dataDir))) {
    throw new ConfigError(
      `no Archivist data in ${config.dataDir} (no events.db there): check DATA_DIR, or start the server once to create it`,
    );
  }
  // Another process may be appending: poll for its events.
  const eventStore = await openEventStore(config, { pollIntervalMs: 200 });
  const readStore = await openReadStore(config);
  const {
    registry,
    readModels,
    engine: projections,
  } = createProjectionStack({
    eventStore,
    readStore,
    projections: projectionsOf(MODULES),
    owner: `cli:${hostname()}:${process.pid}`,
    log,
  });
  return {
    eventStore,
    readStore,
    registry,
    readModels,
    projections,
    async close() {
      await projections.stop();
      await eventStore.close();
      await readStore.close();
    },
  };
}
