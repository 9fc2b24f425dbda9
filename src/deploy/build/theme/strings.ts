// The words a built docs site adds around its authors' content, in the site's `language`: the page
// shell, the 404 page, callout titles and the client script's few words (decision 0068). Languages
// without a set here read English; a tag matches by its primary language (`pt-BR` reads `pt`), except
// Chinese, whose set is Simplified and matches only Simplified tags.

export interface UiStrings {
  onThisPage: string;
  /** Before the date of the last change: "Last updated March 3, 2026". */
  lastUpdated: string;
  editPage: string;
  pager: string;
  previous: string;
  next: string;
  skipToContent: string;
  menu: string;
  searchPlaceholder: string;
  searchLabel: string;
  themeToggle: string;
  navigation: string;
  /** The breadcrumb trail's label. */
  breadcrumbs: string;
  /** The top bar's section links (blume.json `tabs`). */
  sections: string;
  builtWith: string;
  notFound: string;
  /** The 404 page's text; `{home}` is the link to the home page. */
  notFoundText: string;
  copy: string;
  copied: string;
  noResults: string;
  callouts: Record<CalloutKind, string>;
}

export type CalloutKind = 'note' | 'tip' | 'info' | 'important' | 'warning' | 'caution' | 'danger';

const EN: UiStrings = {
  onThisPage: 'On this page',
  lastUpdated: 'Last updated',
  editPage: 'Edit this page',
  pager: 'Previous and next page',
  previous: 'Previous',
  next: 'Next',
  skipToContent: 'Skip to content',
  menu: 'Menu',
  searchPlaceholder: 'Search (press /)',
  searchLabel: 'Search the docs',
  themeToggle: 'Switch between light and dark theme',
  navigation: 'Documentation',
  breadcrumbs: 'Breadcrumb',
  sections: 'Sections',
  builtWith: 'Built with Blume',
  notFound: 'Page not found',
  notFoundText: 'There is no page at this address. Try the search above, or start from {home}.',
  copy: 'Copy',
  copied: 'Copied',
  noResults: 'No results',
  callouts: {
    note: 'Note',
    tip: 'Tip',
    info: 'Info',
    important: 'Important',
    warning: 'Warning',
    caution: 'Caution',
    danger: 'Danger',
  },
};

const SETS: Record<string, UiStrings> = {
  en: EN,
  de: {
    onThisPage: 'Auf dieser Seite',
    lastUpdated: 'Zuletzt aktualisiert am',
    editPage: 'Diese Seite bearbeiten',
    pager: 'Vorherige und nächste Seite',
    previous: 'Zurück',
    next: 'Weiter',
    skipToContent: 'Zum Inhalt springen',
    menu: 'Menü',
    searchPlaceholder: 'Suchen (/ drücken)',
    searchLabel: 'Die Dokumentation durchsuchen',
    themeToggle: 'Zwischen hellem und dunklem Design wechseln',
    navigation: 'Dokumentation',
    breadcrumbs: 'Brotkrümelpfad',
    sections: 'Bereiche',
    builtWith: 'Erstellt mit Blume',
    notFound: 'Seite nicht gefunden',
    notFoundText:
      'Unter dieser Adresse gibt es keine Seite. Versuchen Sie die Suche oben oder beginnen Sie bei {home}.',
    copy: 'Kopieren',
    copied: 'Kopiert',
    noResults: 'Keine Ergebnisse',
    callouts: {
      note: 'Hinweis',
      tip: 'Tipp',
      info: 'Info',
      important: 'Wichtig',
      warning: 'Warnung',
      caution: 'Vorsicht',
      danger: 'Gefahr',
    },
  },
  es: {
    onThisPage: 'En esta página',
    lastUpdated: 'Actualizado el',
    editPage: 'Editar esta página',
    pager: 'Página anterior y siguiente',
    previous: 'Anterior',
    next: 'Siguiente',
    skipToContent: 'Saltar al contenido',
    menu: 'Menú',
    searchPlaceholder: 'Buscar (pulsa /)',
    searchLabel: 'Buscar en la documentación',
    themeToggle: 'Cambiar entre tema claro y oscuro',
    navigation: 'Documentación',
    breadcrumbs: 'Ruta de navegación',
    sections: 'Secciones',
    builtWith: 'Hecho con Blume',
    notFound: 'Página no encontrada',
    notFoundText: 'No hay ninguna página en esta dirección. Prueba la búsqueda de arriba o empieza por {home}.',
    copy: 'Copiar',
    copied: 'Copiado',
    noResults: 'Sin resultados',
    callouts: {
      note: 'Nota',
      tip: 'Consejo',
      info: 'Información',
      important: 'Importante',
      warning: 'Advertencia',
      caution: 'Precaución',
      danger: 'Peligro',
    },
  },
  fr: {
    onThisPage: 'Sur cette page',
    lastUpdated: 'Dernière mise à jour le',
    editPage: 'Modifier cette page',
    pager: 'Page précédente et suivante',
    previous: 'Précédent',
    next: 'Suivant',
    skipToContent: 'Aller au contenu',
    menu: 'Menu',
    searchPlaceholder: 'Rechercher (touche /)',
    searchLabel: 'Rechercher dans la documentation',
    themeToggle: 'Basculer entre le thème clair et le thème sombre',
    navigation: 'Documentation',
    breadcrumbs: 'Fil d’Ariane',
    sections: 'Sections',
    builtWith: 'Créé avec Blume',
    notFound: 'Page introuvable',
    notFoundText: 'Il n’y a aucune page à cette adresse. Essayez la recherche ci-dessus ou commencez par {home}.',
    copy: 'Copier',
    copied: 'Copié',
    noResults: 'Aucun résultat',
    callouts: {
      note: 'Remarque',
      tip: 'Astuce',
      info: 'Info',
      important: 'Important',
      warning: 'Avertissement',
      caution: 'Attention',
      danger: 'Danger',
    },
  },
  it: {
    onThisPage: 'In questa pagina',
    lastUpdated: 'Aggiornato il',
    editPage: 'Modifica questa pagina',
    pager: 'Pagina precedente e successiva',
    previous: 'Precedente',
    next: 'Successiva',
    skipToContent: 'Vai al contenuto',
    menu: 'Menu',
    searchPlaceholder: 'Cerca (premi /)',
    searchLabel: 'Cerca nella documentazione',
    themeToggle: 'Passa dal tema chiaro a quello scuro',
    navigation: 'Documentazione',
    breadcrumbs: 'Percorso',
    sections: 'Sezioni',
    builtWith: 'Realizzato con Blume',
    notFound: 'Pagina non trovata',
    notFoundText: 'Non esiste alcuna pagina a questo indirizzo. Prova la ricerca qui sopra o parti da {home}.',
    copy: 'Copia',
    copied: 'Copiato',
    noResults: 'Nessun risultato',
    callouts: {
      note: 'Nota',
      tip: 'Suggerimento',
      info: 'Info',
      important: 'Importante',
      warning: 'Avviso',
      caution: 'Attenzione',
      danger: 'Pericolo',
    },
  },
  ja: {
    onThisPage: 'このページの内容',
    lastUpdated: '最終更新日:',
    editPage: 'このページを編集',
    pager: '前後のページ',
    previous: '前へ',
    next: '次へ',
    skipToContent: '本文へ移動',
    menu: 'メニュー',
    searchPlaceholder: '検索（/ キー）',
    searchLabel: 'ドキュメントを検索',
    themeToggle: 'ライトテーマとダークテーマを切り替える',
    navigation: 'ドキュメント',
    breadcrumbs: 'パンくずリスト',
    sections: 'セクション',
    builtWith: 'Blume で作成',
    notFound: 'ページが見つかりません',
    notFoundText: 'このアドレスにはページがありません。上の検索を使うか、{home} から始めてください。',
    copy: 'コピー',
    copied: 'コピーしました',
    noResults: '結果がありません',
    callouts: {
      note: '注記',
      tip: 'ヒント',
      info: '情報',
      important: '重要',
      warning: '警告',
      caution: '注意',
      danger: '危険',
    },
  },
  nl: {
    onThisPage: 'Op deze pagina',
    lastUpdated: 'Laatst bijgewerkt op',
    editPage: 'Deze pagina bewerken',
    pager: 'Vorige en volgende pagina',
    previous: 'Vorige',
    next: 'Volgende',
    skipToContent: 'Naar de inhoud',
    menu: 'Menu',
    searchPlaceholder: 'Zoeken (druk op /)',
    searchLabel: 'De documentatie doorzoeken',
    themeToggle: 'Wisselen tussen licht en donker thema',
    navigation: 'Documentatie',
    breadcrumbs: 'Kruimelpad',
    sections: 'Secties',
    builtWith: 'Gemaakt met Blume',
    notFound: 'Pagina niet gevonden',
    notFoundText: 'Op dit adres staat geen pagina. Probeer de zoekfunctie hierboven of begin bij {home}.',
    copy: 'Kopiëren',
    copied: 'Gekopieerd',
    noResults: 'Geen resultaten',
    callouts: {
      note: 'Opmerking',
      tip: 'Tip',
      info: 'Info',
      important: 'Belangrijk',
      warning: 'Waarschuwing',
      caution: 'Let op',
      danger: 'Gevaar',
    },
  },
  pt: {
    onThisPage: 'Nesta página',
    lastUpdated: 'Atualizado em',
    editPage: 'Editar esta página',
    pager: 'Página anterior e seguinte',
    previous: 'Anterior',
    next: 'Próxima',
    skipToContent: 'Pular para o conteúdo',
    menu: 'Menu',
    searchPlaceholder: 'Pesquisar (pressione /)',
    searchLabel: 'Pesquisar na documentação',
    themeToggle: 'Alternar entre tema claro e escuro',
    navigation: 'Documentação',
    breadcrumbs: 'Trilha de navegação',
    sections: 'Seções',
    builtWith: 'Feito com Blume',
    notFound: 'Página não encontrada',
    notFoundText: 'Não há nenhuma página neste endereço. Tente a pesquisa acima ou comece por {home}.',
    copy: 'Copiar',
    copied: 'Copiado',
    noResults: 'Nenhum resultado',
    callouts: {
      note: 'Nota',
      tip: 'Dica',
      info: 'Informação',
      important: 'Importante',
      warning: 'Aviso',
      caution: 'Cuidado',
      danger: 'Perigo',
    },
  },
  zh: {
    onThisPage: '本页内容',
    lastUpdated: '最后更新于',
    editPage: '编辑此页',
    pager: '上一页和下一页',
    previous: '上一页',
    next: '下一页',
    skipToContent: '跳到正文',
    menu: '菜单',
    searchPlaceholder: '搜索（按 /）',
    searchLabel: '搜索文档',
    themeToggle: '在浅色和深色主题之间切换',
    navigation: '文档',
    breadcrumbs: '面包屑导航',
    sections: '栏目',
    builtWith: '由 Blume 构建',
    notFound: '页面未找到',
    notFoundText: '此地址没有页面。请尝试上方的搜索，或从 {home} 开始。',
    copy: '复制',
    copied: '已复制',
    noResults: '没有结果',
    callouts: {
      note: '备注',
      tip: '提示',
      info: '信息',
      important: '重要',
      warning: '警告',
      caution: '注意',
      danger: '危险',
    },
  },
};

const TRADITIONAL_CHINESE = /^zh-(hant|tw|hk|mo)(-|$)/i;

export function uiStrings(language: string | undefined): UiStrings {
  if (language === undefined || TRADITIONAL_CHINESE.test(language)) return EN;
  return SETS[language.split('-', 1)[0]!.toLowerCase()] ?? EN;
}
