import { marked, type Token, type Tokens } from 'marked';
import type { ComponentChildren } from 'preact';

/**
 * Problem statements are Markdown written by the catalogue's or the organisation's authors. They are parsed
 * with marked's lexer and rendered as Preact nodes: text is always text, raw HTML is shown as written, and
 * links keep only http(s) targets. Nothing is ever set as innerHTML.
 */
export function Markdown({ text }: { text: string }) {
  return <>{blocks(marked.lexer(text))}</>;
}

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((token, i) => block(token, i));
}

function block(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case 'space':
    case 'hr':
      return null;
    case 'paragraph':
      return <p key={key}>{inline((token as Tokens.Paragraph).tokens)}</p>;
    case 'heading':
      return <h4 key={key}>{inline((token as Tokens.Heading).tokens)}</h4>;
    case 'code':
      return <pre key={key}><code>{(token as Tokens.Code).text}</code></pre>;
    case 'blockquote':
      return <blockquote key={key}>{blocks((token as Tokens.Blockquote).tokens)}</blockquote>;
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item, j) => <li key={j}>{item.tokens.map((t, k) => (t.type === 'text' ? inline((t as Tokens.Text).tokens ?? [t]) : block(t, k)))}</li>);
      return list.ordered ? <ol key={key} start={typeof list.start === 'number' ? list.start : 1}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case 'text':
      return <p key={key}>{inline((token as Tokens.Text).tokens ?? [token])}</p>;
    default:
      return <p key={key}>{token.raw}</p>;
  }
}

function inline(tokens: Token[] | undefined): ComponentChildren[] {
  return (tokens ?? []).map((token, i) => {
    switch (token.type) {
      case 'text':
        return (token as Tokens.Text).tokens ? <span key={i}>{inline((token as Tokens.Text).tokens)}</span> : (token as Tokens.Text).text;
      case 'escape':
        return (token as Tokens.Escape).text;
      case 'codespan':
        return <code key={i}>{(token as Tokens.Codespan).text}</code>;
      case 'strong':
        return <strong key={i}>{inline((token as Tokens.Strong).tokens)}</strong>;
      case 'em':
        return <em key={i}>{inline((token as Tokens.Em).tokens)}</em>;
      case 'del':
        return <del key={i}>{inline((token as Tokens.Del).tokens)}</del>;
      case 'br':
        return <br key={i} />;
      case 'link': {
        const link = token as Tokens.Link;
        return /^https?:\/\//i.test(link.href)
          ? <a key={i} href={link.href} target="_blank" rel="noopener noreferrer">{inline(link.tokens)}</a>
          : <span key={i}>{inline(link.tokens)}</span>;
      }
      default:
        return token.raw;
    }
  });
}
