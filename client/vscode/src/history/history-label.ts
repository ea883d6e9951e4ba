/** How a history entry reads in the picker: the query without its leading comments, and times a person reads at a glance. */

/** The query on one line, without the comment lines it starts with (they describe it; the query is what tells entries apart). */
export function historyLabel(text: string, max = 120): string {
    const lines = text.split(/\r?\n/);
    let i = 0;
    while (i < lines.length - 1 && (lines[i].trim() === '' || lines[i].trim().startsWith('//'))) i++;
    const one = lines.slice(i).join(' ').replace(/\s+/g, ' ').trim();
    return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date. */
export function relativeTime(at: Date, now: Date): string {
    const s = Math.round((now.getTime() - at.getTime()) / 1000);
    if (s < 60) return 'just now';
    const m = Math.floor(s / 60);
    if (m < 60) return `${m} min ago`;
    const h = Math.floor(m / 60);
    if (h < 24) return `${h} h ago`;
    const d = Math.floor(h / 24);
    if (d === 1) return 'yesterday';
    if (d < 7) return `${d} days ago`;
    return at.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** The run's start in the machine's time zone, to the second. */
export function localTime(at: Date): string {
    return at.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
