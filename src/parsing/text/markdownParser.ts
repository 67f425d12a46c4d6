/**
 * The markdown-it parser the Markdown reader uses: stock markdown-it (CommonMark + GFM tables and
 * strikethrough, raw HTML parsed), one per nesting limit, with its tokens and inline states built
 * by plain constructors.
 *
 * markdown-it's build initialises every field of a token (and of the state made for each paragraph's
 * inline content) through a compiled-class helper that checks the property name's type and defines
 * it by a key unknown until run time, which V8 cannot make fast: that helper alone was a quarter of
 * markdown-it's time, and markdown-it half of reading a README. The constructors here set the same
 * fields in the same order to the same values; the tokens keep markdown-it's `Token` prototype (its
 * methods, `instanceof`), the states markdown-it's own methods but for `push` and `pushPending`,
 * which are markdown-it's code with our token. markdown-it is pinned (package.json) and the tests
 * compare the tokens with stock markdown-it's on real READMEs and the fields with its own objects.
 */
import MarkdownIt, {
  type Delimiter,
  type Env,
  type MarkdownIt as MarkdownParser,
  type StateBlock,
  type StateCore,
  type StateInline,
  type Token,
} from 'markdown-it';

export type { MarkdownParser };

type Nesting = Token['nesting'];

const stock = new MarkdownIt();
const StockToken = new stock.core.State('', stock, {}).Token;

class PlainToken {
  declare map: Token['map'];
  declare level: number;
  declare children: Token[] | null;
  declare content: string;
  declare markup: string;
  declare info: string;
  declare block: boolean;
  declare hidden: boolean;
  declare type: string;
  declare tag: string;
  declare attrs: Token['attrs'];
  declare nesting: Nesting;
  declare meta: Token['meta'];

  constructor(type: string, tag: string, nesting: Nesting) {
    this.map = null;
    this.level = 0;
    this.children = null;
    this.content = '';
    this.markup = '';
    this.info = '';
    this.block = false;
    this.hidden = false;
    this.type = type;
    this.tag = tag;
    this.attrs = null;
    this.nesting = nesting;
    this.meta = null;
  }
}
Object.setPrototypeOf(PlainToken.prototype, StockToken.prototype);
const TokenClass = PlainToken as unknown as typeof StockToken;

const newToken = (type: string, tag: string, nesting: Nesting): Token => new TokenClass(type, tag, nesting);

class PlainInlineState {
  declare pos: number;
  declare level: number;
  declare pending: string;
  declare pendingLevel: number;
  declare cache: Record<number, number>;
  declare backticks: Record<number, number>;
  declare backticksScanned: boolean;
  declare skipHtmlSpecial: boolean;
  declare linkLevel: number;
  declare delimiters: Delimiter[];
  declare _prev_delimiters: Delimiter[][];
  declare Token: typeof StockToken;
  declare src: string;
  declare env: Env;
  declare md: MarkdownParser;
  declare tokens: Token[];
  declare tokens_meta: StateInline['tokens_meta'];
  declare posMax: number;

  constructor(src: string, md: MarkdownParser, env: Env, outTokens: Token[]) {
    this.pos = 0;
    this.level = 0;
    this.pending = '';
    this.pendingLevel = 0;
    this.cache = {};
    this.backticks = {};
    this.backticksScanned = false;
    this.skipHtmlSpecial = false;
    this.linkLevel = 0;
    this.delimiters = [];
    this._prev_delimiters = [];
    this.Token = TokenClass;
    this.src = src;
    this.env = env;
    this.md = md;
    this.tokens = outTokens;
    this.tokens_meta = Array<StateInline['tokens_meta'][number]>(outTokens.length);
    this.posMax = this.src.length;
  }

  pushPending(): Token {
    const token = newToken('text', '', 0);
    token.content = this.pending;
    token.level = this.pendingLevel;
    this.tokens.push(token);
    this.pending = '';
    return token;
  }

  push(type: string, tag: string, nesting: Nesting): Token {
    if (this.pending) this.pushPending();
    const token = newToken(type, tag, nesting);
    let meta: StateInline['tokens_meta'][number];
    if (nesting < 0) {
      this.level -= 1;
      // As in markdown-it: a closing token always follows its opening one.
      this.delimiters = this._prev_delimiters.pop() as Delimiter[];
    }
    token.level = this.level;
    if (nesting > 0) {
      this.level += 1;
      this._prev_delimiters.push(this.delimiters);
      this.delimiters = [];
      meta = { delimiters: this.delimiters };
    }
    this.pendingLevel = this.level;
    this.tokens.push(token);
    this.tokens_meta.push(meta);
    return token;
  }
}

// Every other method of the inline state is markdown-it's.
Object.setPrototypeOf(PlainInlineState.prototype, stock.inline.State.prototype);

/** One block state per document: only its tokens change. */
function blockState(Base: typeof StateBlock): typeof StateBlock {
  return class extends Base {
    constructor(src: string, md: MarkdownParser, env: Env, tokens: Token[]) {
      super(src, md, env, tokens);
      this.Token = TokenClass;
    }

    override push(type: string, tag: string, nesting: Nesting): Token {
      const token = newToken(type, tag, nesting);
      token.block = true;
      if (nesting < 0) this.level -= 1;
      token.level = this.level;
      if (nesting > 0) this.level += 1;
      this.tokens.push(token);
      return token;
    }
  };
}

function coreState(Base: typeof StateCore): typeof StateCore {
  return class extends Base {
    constructor(src: string, md: MarkdownParser, env: Env) {
      super(src, md, env);
      this.Token = TokenClass;
    }
  };
}

const parsers = new Map<number, MarkdownParser>();

/**
 * The parser for a nesting limit. Building one costs as much as parsing a README, and a parser keeps
 * no state between documents, so one serves every document.
 */
export function markdownParser(maxNestingDepth: number): MarkdownParser {
  let parser = parsers.get(maxNestingDepth);
  if (!parser) {
    // markdown-it silently drops what nests deeper than `maxNesting`: set it above our own limit (a
    // container opens up to two levels) so that too-deep input is refused, not truncated.
    parser = new MarkdownIt('default', {
      html: true,
      linkify: false,
      typographer: false,
      maxNesting: maxNestingDepth * 2 + 10,
    });
    parser.inline.State = PlainInlineState as unknown as typeof StateInline;
    parser.block.State = blockState(parser.block.State);
    parser.core.State = coreState(parser.core.State);
    parsers.set(maxNestingDepth, parser);
  }
  return parser;
}
