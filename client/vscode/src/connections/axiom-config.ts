/**
 * The deployments of the Axiom CLI's `~/.axiom.toml`, to import as connections (their tokens go
 * to SecretStorage; the file is only read):
 *
 *     active_deployment = "prod"
 *     [deployments.prod]
 *     url = "https://api.axiom.co"
 *     token = "xapt-…"
 *     org_id = "my-org"
 */
import { parse } from 'smol-toml';

export interface AxiomDeployment {
    name: string;
    url: string;
    token: string;
    orgId?: string;
    active: boolean;
}

export function parseAxiomConfig(text: string): AxiomDeployment[] {
    let doc: Record<string, unknown>;
    try {
        doc = parse(text) as Record<string, unknown>;
    } catch (e) {
        throw new Error(`~/.axiom.toml is not valid TOML: ${(e as Error).message.split('\n')[0]}`, { cause: e });
    }
    const deployments = doc.deployments;
    if (!deployments || typeof deployments !== 'object') return [];
    const active = typeof doc.active_deployment === 'string' ? doc.active_deployment : undefined;
    const out: AxiomDeployment[] = [];
    for (const [name, value] of Object.entries(deployments as Record<string, unknown>)) {
        if (!value || typeof value !== 'object') continue;
        const d = value as Record<string, unknown>;
        if (typeof d.url !== 'string' || typeof d.token !== 'string' || d.token === '') continue;
        out.push({ name, url: d.url, token: d.token, orgId: typeof d.org_id === 'string' && d.org_id !== '' ? d.org_id : undefined, active: name === active });
    }
    return out;
}
