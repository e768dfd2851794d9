import Foundation

/// The HTML report's stylesheet (inline in the page): system fonts only, light and dark schemes,
/// series colours for the charts.
enum HTMLStyle {
    static let css = """
    :root {
      --bg: #f5f6f8; --card: #ffffff; --text: #1c2230; --muted: #5d6678; --faint: #8a93a3;
      --border: #e1e5ec; --grid: #e9ecf1; --head: #f0f2f6;
      --insert: #2f9e5b; --update: #d98a1c; --delete: #d64848; --count: #4a72b0; --sum: #e0713b;
      --ins-bg: #e2f5e9; --ins-text: #11612f; --del-bg: #fde6e6; --del-text: #9d1f1f;
      --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, "Liberation Mono", monospace;
    }
    @media (prefers-color-scheme: dark) {
      :root {
        --bg: #14171d; --card: #1c2029; --text: #e4e8ef; --muted: #a3acbb; --faint: #77808f;
        --border: #2d333f; --grid: #272c37; --head: #232833;
        --ins-bg: #173a25; --ins-text: #8fe0ad; --del-bg: #472022; --del-text: #ffaaaa;
      }
    }
    * { box-sizing: border-box; }
    html { background: var(--bg); color: var(--text); }
    body {
      margin: 0 auto; max-width: 1120px; padding: 32px 28px 48px;
      font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif;
      -webkit-text-size-adjust: 100%;
    }
    header { margin-bottom: 24px; }
    h1 { font-size: 26px; line-height: 1.25; margin: 0 0 4px; letter-spacing: -0.01em; }
    h2 { font-size: 18px; margin: 0 0 12px; }
    h3 { font-size: 15px; margin: 20px 0 6px; }
    .subtitle { color: var(--muted); margin: 0; font-family: var(--mono); font-size: 13px; word-break: break-all; }
    section.card { background: var(--card); border: 1px solid var(--border); border-radius: 10px; padding: 20px 22px; margin: 0 0 20px; }
    p { margin: 0 0 10px; }
    .muted { color: var(--muted); }
    .note { color: var(--muted); font-size: 14px; margin: 12px 0 0; }
    code, .mono { font-family: var(--mono); font-size: 13px; }
    dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 20px; margin: 0 0 18px; }
    dl.meta dt { color: var(--muted); }
    dl.meta dd { margin: 0; word-break: break-all; }
    .stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(130px, 1fr)); gap: 12px; }
    .stat { border: 1px solid var(--border); border-radius: 8px; padding: 10px 14px; border-top: 4px solid var(--faint); }
    .stat .number { display: block; font-size: 26px; font-weight: 700; font-variant-numeric: tabular-nums; line-height: 1.2; }
    .stat .label { color: var(--muted); font-size: 13px; }
    .stat.insert { border-top-color: var(--insert); } .stat.update { border-top-color: var(--update); } .stat.delete { border-top-color: var(--delete); }
    .empty { font-size: 17px; font-weight: 600; color: var(--muted); margin: 0 0 16px; }
    .table-wrap { overflow-x: auto; }
    table { border-collapse: collapse; width: 100%; font-size: 14px; }
    th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--border); vertical-align: top; }
    thead th { background: var(--head); font-weight: 600; font-size: 13px; color: var(--muted); white-space: nowrap; }
    tfoot td, tfoot th { font-weight: 700; border-top: 2px solid var(--border); border-bottom: none; }
    td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
    td.key { font-family: var(--mono); font-size: 13px; white-space: pre-wrap; overflow-wrap: anywhere; min-width: 14em; max-width: 26em; }
    .badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600; color: #fff; }
    .badge.insert { background: var(--insert); } .badge.update { background: var(--update); } .badge.delete { background: var(--delete); }
    .change { display: block; font-family: var(--mono); font-size: 13px; line-height: 1.6; }
    .pairs { display: flex; flex-wrap: wrap; gap: 2px 14px; font-family: var(--mono); font-size: 13px; line-height: 1.6; }
    .attr { color: var(--muted); }
    del, ins { text-decoration: none; border-radius: 3px; padding: 0 3px; white-space: pre-wrap; overflow-wrap: anywhere; }
    del { background: var(--del-bg); color: var(--del-text); text-decoration: line-through; }
    ins { background: var(--ins-bg); color: var(--ins-text); }
    .arrow { color: var(--faint); padding: 0 2px; }
    .null { color: var(--faint); font-style: italic; }
    .chart { display: block; width: 100%; height: auto; margin: 4px 0 8px; }
    .chart text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; font-size: 12px; fill: var(--muted); }
    .chart text.axis-title { font-size: 12.5px; font-weight: 600; fill: var(--text); }
    .chart text.value { font-size: 11.5px; font-weight: 600; fill: var(--text); }
    .chart .legend text { fill: var(--text); }
    .chart line.grid { stroke: var(--grid); stroke-width: 1; }
    .chart line.grid.zero, .chart line.baseline { stroke: var(--faint); stroke-width: 1; }
    .chart .right-axis.sum text { fill: var(--sum); }
    .chart .insert rect, .chart rect.insert { fill: var(--insert); }
    .chart .update rect { fill: var(--update); }
    .chart .delete rect { fill: var(--delete); }
    .chart .count rect { fill: var(--count); }
    .chart .sum rect { fill: var(--sum); }
    .chart .sum path, .chart .sum line { fill: none; stroke: var(--sum); stroke-width: 2.5; stroke-linejoin: round; }
    .chart .sum circle { fill: var(--card); stroke: var(--sum); stroke-width: 2; }
    .chart rect:hover, .chart circle:hover { opacity: 0.8; }
    details { margin: 4px 0 0; }
    summary { cursor: pointer; color: var(--muted); font-size: 14px; }
    ul.plain { margin: 0; padding-left: 20px; }
    footer { color: var(--faint); font-size: 13px; text-align: center; margin-top: 28px; }
    @media print { html { background: #fff; } section.card { break-inside: avoid; border-color: #ccc; } }
    """
}
