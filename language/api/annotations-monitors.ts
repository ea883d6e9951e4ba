/**
 * The `/v2/annotations` and `/v2/monitors` wire types (Axiom's public API reference), shared by the
 * typed client and the service's routes.
 */

/** `/v2/annotations`: a mark on datasets' timelines. Times RFC 3339; unset optional fields absent. */
export interface Annotation {
    /** `ann_…` */
    id: string;
    /** Lowercase letters, digits and `-` (`production-deploy`). */
    type: string;
    datasets: string[];
    time: string;
    endTime?: string;
    title?: string;
    description?: string;
    url?: string;
}

/** `time` defaults to now. */
export type CreateAnnotationRequest = Omit<Annotation, 'id' | 'time'> & { time?: string };
/** Only the keys given change; `endTime: null` removes the end. */
export type UpdateAnnotationRequest = Partial<Omit<Annotation, 'id' | 'endTime'>> & { endTime?: string | null };

export interface AnnotationFilter {
    datasets?: string[];
    /** RFC 3339: annotations that end at or after it. */
    start?: string;
    /** RFC 3339: annotations that start at or before it. */
    end?: string;
}

export const MONITOR_TYPES = ['Threshold', 'MatchEvent', 'AnomalyDetection'] as const;
export const MONITOR_OPERATORS = ['Below', 'BelowOrEqual', 'Above', 'AboveOrEqual', 'AboveOrBelow'] as const;
export type MonitorType = (typeof MONITOR_TYPES)[number];
export type MonitorOperator = (typeof MONITOR_OPERATORS)[number];

/** `/v2/monitors` definition (the API reference's `Monitor`); exactly one of `aplQuery`/`mplQuery`. */
export interface MonitorRequest {
    name: string;
    type: MonitorType;
    description?: string;
    aplQuery?: string;
    mplQuery?: string;
    operator?: MonitorOperator;
    threshold?: number;
    intervalMinutes: number;
    rangeMinutes?: number;
    alertOnNoData?: boolean;
    notifyByGroup?: boolean;
    notifyEveryRun?: boolean;
    resolvable?: boolean;
    skipResolved?: boolean;
    notifierIds?: string[];
    secondDelay?: number;
    disabled?: boolean;
    disabledUntil?: string;
    tolerance?: number;
    compareDays?: number;
    triggerFromNRuns?: number;
    triggerAfterNPositiveResults?: number;
    columnName?: string;
}

export interface Monitor extends Omit<MonitorRequest, 'operator' | 'mplQuery'> {
    /** `mon_…` */
    id: string;
    /** The query (an MPL query comes back here too, as the live service answers it). */
    aplQuery: string;
    /** `''` when none. */
    operator: MonitorOperator | '';
    createdAt: string;
    createdBy: string;
    updatedAt: string;
}
