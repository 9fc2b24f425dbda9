// A docs build fails with a DocsBuildError listing every problem found, each naming the source file
// (relative to the docs folder) and, where known, the line. The message is what the build log shows.

export type BuildProblemCode =
  | 'broken_link'
  | 'link_outside_root'
  | 'front_matter'
  | 'site_config'
  | 'invalid_utf8'
  | 'hostile_path'
  | 'symlink'
  | 'special_file'
  | 'url_conflict'
  | 'too_many_files'
  | 'file_too_large'
  | 'output_too_large'
  | 'no_pages';

export interface BuildProblem {
  code: BuildProblemCode;
  /** Path relative to the docs folder, forward slashes; '' when the problem is about the whole tree. */
  file: string;
  line?: number;
  message: string;
}

/** Something worth fixing that does not stop the build (an unknown code language, a missing anchor). */
export type BuildWarning = Omit<BuildProblem, 'code'>;

export function formatProblem(problem: Pick<BuildProblem, 'file' | 'line' | 'message'>): string {
  const where =
    problem.file === '' ? '' : problem.line === undefined ? `${problem.file}: ` : `${problem.file}:${problem.line}: `;
  return where + problem.message;
}

export class DocsBuildError extends Error {
  constructor(readonly problems: BuildProblem[]) {
    const shown = problems.slice(0, 50).map(formatProblem);
    if (problems.length > shown.length) shown.push(`... and ${problems.length - shown.length} more`);
    super(problems.length === 1 ? shown[0] : `${problems.length} problems:\n${shown.join('\n')}`);
    this.name = 'DocsBuildError';
  }

  static single(code: BuildProblemCode, file: string, message: string, line?: number): DocsBuildError {
    return new DocsBuildError([{ code, file, message, ...(line === undefined ? {} : { line }) }]);
  }
}
