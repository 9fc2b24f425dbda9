// Error codes of the deploy domain, one per rule a client can break. Data only: src/http/errors.ts
// merges this table into the one typed map that AppError accepts.

export const deployErrorCodes = {
  // 400: the upload is not a readable tar.gz
  archive_missing: { status: 400, title: 'The multipart field `archive` is missing' },
  archive_corrupt: { status: 400, title: 'The archive is not a valid tar.gz' },
  // 413: limits of spec section 8
  archive_too_large: { status: 413, title: 'The compressed archive exceeds the upload limit' },
  archive_uncompressed_too_large: { status: 413, title: 'The archive expands beyond the uncompressed limit' },
  // 422: archive content rules
  archive_too_many_files: { status: 422, title: 'The archive holds more files than allowed' },
  archive_empty: { status: 422, title: 'The archive holds no files' },
  archive_symlink: { status: 422, title: 'The archive contains a symbolic link' },
  archive_hardlink: { status: 422, title: 'The archive contains a hard link' },
  archive_device: { status: 422, title: 'The archive contains a device file' },
  archive_fifo: { status: 422, title: 'The archive contains a named pipe' },
  archive_unsupported_entry: { status: 422, title: 'The archive contains an unsupported entry type' },
  archive_absolute_path: { status: 422, title: 'The archive contains an absolute path' },
  archive_path_traversal: { status: 422, title: 'The archive contains a `..` path segment' },
  archive_backslash_path: { status: 422, title: 'The archive contains a path with a backslash' },
  archive_invalid_path: { status: 422, title: 'The archive contains a path that cannot be served' },
  archive_non_utf8_path: { status: 422, title: 'The archive contains a file name that is not UTF-8' },
  archive_duplicate_path: { status: 422, title: 'The archive contains the same path twice' },
  archive_path_conflict: { status: 422, title: 'The archive uses one path both as a file and as a folder' },
  invalid_headers_file: { status: 422, title: 'The `_headers` file has an invalid rule' },
  headers_file_reserved_header: {
    status: 422,
    title: 'The `_headers` file sets a header that belongs to the server or the connection',
  },
  invalid_redirects_file: { status: 422, title: 'The `_redirects` file has an invalid rule' },
  invalid_blume_json: { status: 422, title: 'The `_blume.json` file has an invalid option' },
  // Access
  token_site_mismatch: { status: 403, title: 'The deploy token belongs to another site' },
  site_not_static: { status: 422, title: 'Only static sites take deploys' },
  // Releases and aliases
  release_not_found: { status: 404, title: 'Release not found' },
  release_not_promotable: { status: 409, title: 'The release is preview-only and cannot be promoted' },
  no_previous_release: { status: 409, title: 'There is no earlier release to roll back to' },
  live_release_changed: { status: 412, title: 'The live release is no longer the one If-Match names' },
  no_live_release: { status: 404, title: 'The site has no live release yet' },
  no_stage_release: { status: 404, title: 'The site has no stage release' },
  deploy_conflict: { status: 409, title: 'A concurrent change removed a blob this release needs; upload again' },
  // Builds and connected repositories
  source_missing: { status: 400, title: 'The multipart field `archive` with the Markdown sources is missing' },
  build_failed: { status: 422, title: 'The build failed; nothing was released' },
  build_not_found: { status: 404, title: 'Build not found' },
  build_canceled: { status: 409, title: 'The build was canceled; nothing was released' },
  build_finished: { status: 409, title: 'The build has already ended and cannot be canceled' },
  github_not_connected: { status: 404, title: 'The site has no connected repository' },
  repository_not_connected: { status: 404, title: 'The repository is not the one connected to this site' },
  invalid_signature: { status: 401, title: 'The webhook signature does not match' },
  invalid_repository_path: { status: 422, title: 'The folder inside the repository is not a valid path' },
  // Build environment variables and custom domains (decision 0142)
  invalid_env_var_name: { status: 422, title: 'The variable name is not allowed' },
  env_var_reserved: { status: 422, title: 'The variable name is reserved: it would change how the build runs' },
  env_var_not_found: { status: 404, title: 'Environment variable not found' },
  invalid_domain: { status: 422, title: 'The domain is not a valid host name' },
  domain_reserved: { status: 422, title: "The domain is one of the platform's own hosts" },
  domain_taken: { status: 409, title: 'The domain already serves a site' },
  domain_not_found: { status: 404, title: 'Domain not found' },
  preview_auth_required: { status: 401, title: 'Preview and stage hosts need basic auth' },
  preview_link_invalid: { status: 401, title: 'The preview link is not valid for this release' },
  preview_link_expired: { status: 401, title: 'The preview link has expired' },
} as const satisfies Record<string, { status: number; title: string }>;
