// Labelled form controls of the admin pages. Every control has a visible (or, in a table row, a
// screen-reader) label, its hint and its error tied to it with aria-describedby.
import { html, type SafeHtml } from '../../../lib/html.js';

interface FieldOptions {
  /** The element id, when the name repeats on the page (one form per table row). */
  id?: string;
  hint?: string;
  error?: string | undefined;
  required?: boolean;
  maxlength?: number;
  pattern?: string;
  autocomplete?: string;
  placeholder?: string;
  /** Label read by screen readers only, for controls inside a table row. */
  hiddenLabel?: boolean;
}

function described(id: string, options: FieldOptions): SafeHtml {
  const ids = [options.hint ? `${id}-hint` : '', options.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`${ids ? html` aria-describedby="${ids}"` : ''}${options.error ? html` aria-invalid="true"` : ''}`;
}

function label(id: string, text: string, options: FieldOptions): SafeHtml {
  return html`<label for="${id}"${options.hiddenLabel ? html` class="sr-only"` : ''}>${text}</label>`;
}

function after(id: string, options: FieldOptions): SafeHtml {
  return html`${options.hint ? html`<span class="hint" id="${id}-hint">${options.hint}</span>` : ''}${
    options.error ? html`<span class="field-error" id="${id}-error">${options.error}</span>` : ''
  }`;
}

export function textField(
  name: string,
  text: string,
  value: string,
  type: 'text' | 'email' | 'url' | 'number' | 'password' | 'search',
  options: FieldOptions = {},
): SafeHtml {
  const id = options.id ?? name;
  return html`<div>\
${label(id, text, options)}<input type="${type}" id="${id}" name="${name}" value="${type === 'password' ? '' : value}"${
    options.required ? html` required` : ''
  }${
    options.maxlength ? html` maxlength="${options.maxlength}"` : ''
  }${options.pattern ? html` pattern="${options.pattern}"` : ''}${
    options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''
  }${
    options.placeholder ? html` placeholder="${options.placeholder}"` : ''
  }${type === 'number' ? html` inputmode="numeric"` : ''}${described(id, options)}>${after(id, options)}</div>`;
}

export function textArea(name: string, text: string, value: string, options: FieldOptions = {}): SafeHtml {
  const id = options.id ?? name;
  return html`<div>${label(id, text, options)}<textarea id="${id}" name="${name}" rows="3"${
    options.maxlength ? html` maxlength="${options.maxlength}"` : ''
  }${described(id, options)}>${value}</textarea>${after(id, options)}</div>`;
}

export function selectField(
  name: string,
  text: string,
  value: string,
  choices: ReadonlyArray<readonly [string, string]>,
  options: FieldOptions = {},
): SafeHtml {
  const id = options.id ?? name;
  return html`<div>${label(id, text, options)}<select id="${id}" name="${name}"${described(id, options)}>${choices.map(
    ([choice, shown]) => html`<option value="${choice}"${choice === value ? html` selected` : ''}>${shown}</option>`,
  )}</select>${after(id, options)}</div>`;
}

export function checkbox(
  name: string,
  text: string,
  checked: boolean,
  options: Pick<FieldOptions, 'id' | 'hint'> = {},
): SafeHtml {
  const id = options.id ?? name;
  return html`<div><label class="check" for="${id}"><input type="checkbox" id="${id}" name="${name}" value="on"${
    checked ? html` checked` : ''
  }${
    options.hint ? html` aria-describedby="${id}-hint"` : ''
  }> ${text}</label>${options.hint ? html`<span class="hint" id="${id}-hint">${options.hint}</span>` : ''}</div>`;
}
