// Avatars on pages: the member's image, or its initials in a coloured bubble (the palette in the
// stylesheet keeps white text at 4.5:1 or better). Decorative: the name is always next to it.
import { html, type SafeHtml } from '../../lib/html.js';
import { avatarUrl, colourOf, initialsOf, MAX_AVATAR_BYTES } from '../avatars.js';
import type { Author } from '../avatars.js';
import type { UiContext } from './context.js';
import { csrfField, postButton } from './layout.js';

export function avatar(author: Pick<Author, 'username' | 'avatar'>, size: 'small' | 'large' = 'small'): SafeHtml {
  const className = size === 'large' ? 'avatar large' : 'avatar';
  if (author.avatar)
    return html`<img class="${className}" src="${avatarUrl(author.avatar)}" alt="" width="${
      size === 'large' ? 64 : 24
    }" height="${size === 'large' ? 64 : 24}" loading="lazy">`;
  return html`<span class="${className} avatar-c${colourOf(author.username)}" aria-hidden="true">\
${initialsOf(author.username)}</span>`;
}

/** The avatar section of the member's own profile page: upload a picture or go back to initials. */
export function avatarSection(ui: UiContext, member: { username: string; avatarUploadId: string | null }): SafeHtml {
  return html`<section aria-labelledby="avatar-heading"><h2 id="avatar-heading">Avatar</h2>
<p class="avatar-now">${avatar({ username: member.username, avatar: member.avatarUploadId }, 'large')} ${
    member.avatarUploadId ? 'Your picture.' : 'Your initials, until you upload a picture.'
  }</p>
<form class="stack" method="post" action="/account/avatar" enctype="multipart/form-data">${csrfField(ui)}
<div class="field"><label for="avatar-file">Picture</label>\
<input type="file" id="avatar-file" name="avatar" accept="image/png,image/jpeg,image/gif,image/webp" required>\
<p class="hint">\
PNG, JPEG, GIF or WebP, at most ${MAX_AVATAR_BYTES / 1024 / 1024} MiB. Its metadata (camera, place) is removed.</p>\
</div>
<div><button type="submit">Upload picture</button></div></form>
${member.avatarUploadId ? postButton(ui, '/account/avatar/remove', 'Use initials instead', {}, 'secondary') : ''}
</section>`;
}
