/**
 * Conversations for the conversations benchmark, written straight into an embedded event log as the
 * conversation commands record them (src/commands/aggregates.ts): `ConversationCreated`
 * then `MessageAppended` 1, 2, 3… in `conversation-<id>`, with the metadata a command stamps. The
 * server started on the log then builds its read models (conversations, messages, the FTS index).
 */
import { randomUUID } from 'node:crypto';
import { eventLogPath } from '../../src/adapters.js';
import { conversationAggregate } from '../../src/commands/aggregates.js';
import type { MessageRole } from '../../src/domain/conversation/events.js';
import type { EventToAppend } from '../../src/eventStore/eventStore.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import { mulberry32 } from '../knowledge/corpus.js';

/** Common English words, most frequent first (drawn with Zipf-like frequencies). */
const ENGLISH = `the of and to a in is it you that he was for on are with as his they be at one have this
from or had by hot word but what some we can out other were all there when up use your how said an
each she which do their time if will way about many then them write would like so these her long make
thing see him two has look more day could go come did number sound no most people my over know water
than call first who may down side been now find any new work part take get place made live where after
back little only round man year came show every good me give our under name very through just form
sentence great think say help low line differ turn cause much mean before move right boy old too same
tell does set three want air well also play small end put home read hand port large spell add even
land here must big high such follow act why ask men change went light kind off need house picture try
us again animal point mother world near build self earth father head stand own page should country
found answer school grow study still learn plant cover food sun four between state keep eye never last
let thought city tree cross farm hard start might story saw far sea draw left late run while press
close night real life few north open seem together next white children begin got walk example ease
paper group always music those both mark often letter until mile river car feet care second book
carry took science eat room friend began idea fish mountain stop once base hear horse cut sure watch
color face wood main enough plain girl usual young ready above ever red list though feel talk bird soon
body dog family direct pose leave song measure door product black short numeral class wind question
happen complete ship area half rock order fire south problem piece told knew pass since top whole king
space heard best hour better during hundred five remember step early hold west ground interest reach
fast verb sing listen six table travel less morning ten simple several vowel toward war lay against
pattern slow center love person money serve appear road map rain rule govern pull cold notice voice
unit power town fine certain fly fall lead cry dark machine note wait plan figure star box noun field
rest correct able pound done beauty drive stood contain front teach week final gave green quick
develop ocean warm free minute strong special mind behind clear tail produce fact street inch multiply
nothing course stay wheel full force blue object decide surface deep moon island foot system busy test
record boat common gold possible plane stead dry wonder laugh thousand ago ran check game shape equate
miss brought heat snow tire bring yes distant fill east paint language among invoice contract report
customer meeting budget deadline server deploy release ticket account payment refund schedule
quarter revenue policy supplier warehouse shipment inventory approval manager review draft agenda`
  .split(/\s+/u)
  .filter((word) => word.length > 0);

/** Arabic sentences (about one message in twenty), with letter variants and diacritics the index folds. */
const ARABIC = [
  'مرحبا، أريد معرفة حالة الطلب رقم',
  'هل يمكنك تلخيص التقرير المالي للربع الأخير',
  'ما هي سياسة الإرجاع في المستودع الرئيسي',
  'أرسل الفاتورة إلى العميل قبل الموعد النهائي',
  'الاجتماع مع المدير غداً في الساعة العاشرة',
  'تمت الموافقة على الميزانية الجديدة للمشروع',
  'يرجى مراجعة العقد وإرسال الملاحظات',
  'إِدارة المخزون تحتاج إلى تحديث البيانات',
];

export interface ConversationSeedOptions {
  dataDir: string;
  /** The user whose conversations are searched. */
  owner: string;
  /** Conversations of `owner` (messages spread evenly over them). */
  conversations: number;
  messages: number;
  /** Other users, each with `otherConversations` conversations of `otherMessages` messages in all. */
  otherUsers: number;
  otherConversations: number;
  otherMessages: number;
  /** One more conversation of `owner` holding this many messages (the long history). */
  longConversation: number;
  seed?: number;
}

export interface SeededConversations {
  events: number;
  messages: number;
  longConversationId: string;
  /** Words rare enough to be a near-unique search term, each in a handful of the owner's messages. */
  rareTerms: string[];
  /** Frequent words, each in thousands of messages. */
  commonTerms: string[];
}

/** Rare marker words: one in about every 2,000 messages carries one of them. */
const RARE_COUNT = 100;

export async function seedConversations(options: ConversationSeedOptions): Promise<SeededConversations> {
  const random = mulberry32(options.seed ?? 7);
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 0; rank < ENGLISH.length; rank += 1) {
    total += 1 / (rank + 1 + 2.7);
    cumulative.push(total);
  }
  const word = (): string => {
    const target = random() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return ENGLISH[lo]!;
  };
  const rareTerms = Array.from({ length: RARE_COUNT }, (_, i) => `zephyrine${String(i).padStart(3, '0')}`);
  const text = (): string => {
    if (random() < 0.05)
      return `${ARABIC[Math.floor(random() * ARABIC.length)]!} ${1000 + Math.floor(random() * 9000)}`;
    const words = Array.from({ length: 8 + Math.floor(random() * 40) }, word);
    if (random() < (0.0005 * RARE_COUNT) / 2)
      words.splice(Math.floor(random() * words.length), 0, rareTerms[Math.floor(random() * RARE_COUNT)]!);
    const sentence = words.join(' ');
    return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
  };

  const store = createSqliteEventStore({ path: eventLogPath(options.dataDir) });
  const seeded: SeededConversations = {
    events: 0,
    messages: 0,
    longConversationId: '',
    rareTerms,
    commonTerms: ['customer', 'invoice', 'meeting', 'the report'],
  };
  let clock = Date.UTC(2026, 0, 1);
  const metadata = () => ({
    now: new Date((clock += 1_000)).toISOString(),
    actorId: 'bench',
    correlationId: randomUUID(),
  });
  const conversation = (
    owner: string,
    messages: number,
  ): { stream: string; events: EventToAppend[]; id: string } => {
    const id = randomUUID();
    const events: EventToAppend[] = [
      {
        type: 'ConversationCreated',
        data: { conversationId: id, owner, title: `${word()} ${word()} ${word()}` },
        metadata: metadata(),
      },
    ];
    for (let sequence = 1; sequence <= messages; sequence += 1) {
      const role: MessageRole = sequence % 2 === 1 ? 'user' : 'assistant';
      events.push({
        type: 'MessageAppended',
        data: { conversationId: id, messageId: randomUUID(), sequence, role, content: text() },
        metadata: metadata(),
      });
    }
    seeded.messages += messages;
    seeded.events += events.length;
    return { stream: conversationAggregate.streamOf(id), events, id };
  };

  const plan: Array<{ owner: string; messages: number; long?: boolean }> = [];
  const spread = (owner: string, conversations: number, messages: number): void => {
    for (let i = 0; i < conversations; i += 1) {
      const count =
        Math.floor(((i + 1) * messages) / conversations) - Math.floor((i * messages) / conversations);
      plan.push({ owner, messages: count });
    }
  };
  spread(options.owner, options.conversations, options.messages);
  for (let u = 0; u < options.otherUsers; u += 1) {
    spread(`user${u}`, options.otherConversations, options.otherMessages);
  }
  plan.push({ owner: options.owner, messages: options.longConversation, long: true });

  try {
    const BATCH = 50;
    for (let first = 0; first < plan.length; first += BATCH) {
      await Promise.all(
        plan.slice(first, first + BATCH).map((entry) => {
          const { stream, events, id } = conversation(entry.owner, entry.messages);
          if (entry.long) seeded.longConversationId = id;
          return store.append(stream, events, { expectedVersion: 'no_stream' });
        }),
      );
    }
  } finally {
    await store.close();
  }
  return seeded;
}
