/** The shapes of the API answers the console reads (see /openapi.json); only the fields it uses. */

export interface DocumentRecord {
  id: string;
  text: string;
  metadata: {
    title: string;
    source: string;
    section: string;
    language: string;
    collection?: string;
    format?: string;
    chunk_count?: number;
    created_at?: string;
  };
}

export interface DocumentPage {
  documents: DocumentRecord[];
  total: number;
  page: number;
  pages: number;
}

export interface Excerpt {
  text: string;
  start: number;
  end: number;
}

/** A passage an answer rests on: a query's source or a chat answer's citation. */
export interface Citation {
  doc_id: string;
  title: string | null;
  source?: string;
  section?: string;
  section_path?: string[];
  page_start?: number;
  page_end?: number;
  score: number;
  excerpt?: Excerpt;
}

export interface QueryAnswer {
  question: string;
  answer: string;
  abstained: boolean;
  sources: Citation[];
}

export interface SearchHit {
  text: string;
  excerpt: Excerpt;
  source: string;
  metadata: { title: string; section: string; language: string };
  score: number;
  doc_id: string;
}

export interface TaskAccepted {
  task_id: string;
  status: string;
}

export interface ToolOutcome {
  success: boolean;
  result: unknown;
  execution_time_ms: number;
  error?: { type?: string; message?: string };
  requires_confirmation?: boolean;
  action_id?: string;
  status?: string;
}

export interface PendingAction {
  action_id: string;
  tool_name: string;
  params: Record<string, unknown>;
  risk_level: string;
  status: string;
  created_at: string;
  expires_at: string;
  requested_by: string;
  approval: string;
  can_confirm: boolean;
}

export interface Conversation {
  conversation_id: string;
  title: string | null;
  status: 'Active' | 'Deleted';
  message_count: number;
  last_activity_at: string;
  deleted_at: string | null;
}

export interface ConversationHit {
  conversation_id: string;
  title: string | null;
  match: 'title' | 'message';
  role: string | null;
  snippet: string;
}

export interface HistoryMessage {
  message_id: string;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: Array<{ id?: string; name?: string; arguments?: unknown }>;
}
