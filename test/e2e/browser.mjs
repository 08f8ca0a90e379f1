/**
 * Drives the real n8n editor with headless Chromium (playwright-core) and takes the documentation
 * screenshots: the canvas of a workflow, the Proxy Account node's panel after running it, and the
 * trigger node's panel.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { chromium } from 'playwright-core';

export const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

const NDV = '[data-test-id="ndv"]';
const CANVAS_NODE = '[data-test-id="canvas-node"]';

/** Closes whatever modal n8n shows on a fresh instance (what's new, survey, banners). */
async function dismissModals(page) {
	for (let i = 0; i < 3; i++) {
		const modal = page.locator('.el-dialog:visible, [role="dialog"]:visible').filter({ hasNot: page.locator(NDV) });
		if ((await modal.count()) === 0) return;
		await page.keyboard.press('Escape');
		await page.waitForTimeout(300);
	}
}

/** Closes the "Node executed successfully" toasts so they do not cover the screenshots. */
async function dismissToasts(page) {
	const close = page.locator('.el-notification__closeBtn:visible');
	for (let i = (await close.count()) - 1; i >= 0; i--) await close.nth(i).click().catch(() => undefined);
	// Move the pointer off the panels (no hover highlight) and let them finish their transitions.
	await page.mouse.move(2, 2);
	await page.waitForTimeout(1000);
}

async function openWorkflow(page, id) {
	await page.goto(`/workflow/${id}`, { waitUntil: 'domcontentloaded' });
	await page.locator(CANVAS_NODE).first().waitFor({ state: 'visible', timeout: 60_000 });
	await dismissModals(page);
	// Let the canvas fit the view and the icons load.
	await page.waitForLoadState('networkidle', { timeout: 10_000 }).catch(() => undefined);
	await page.waitForTimeout(1000);
}

async function openNode(page, name) {
	const node = page.locator(CANVAS_NODE).filter({ hasText: name }).first();
	await node.waitFor({ state: 'visible', timeout: 30_000 });
	await node.dblclick();
	await page.locator(NDV).first().waitFor({ state: 'visible', timeout: 30_000 });
	await page.waitForTimeout(500);
}

/** Waits until the output panel shows data (a table, JSON or schema view, or "N items"). */
async function waitForOutput(page, timeout) {
	const panel = page.locator('[data-test-id="output-panel"]');
	await panel.waitFor({ state: 'visible', timeout });
	await page.waitForFunction(
		() => {
			const el = globalThis.document.querySelector('[data-test-id="output-panel"]');
			if (!el) return false;
			const text = el.textContent ?? '';
			return /\d+\s+items?/i.test(text) && el.querySelector('table, [data-test-id="run-data-schema"], .json-data, [class*="json"]') !== null;
		},
		undefined,
		{ timeout },
	);
	return (await panel.textContent()) ?? '';
}

/** Launches Chromium logged in to the editor; returns { context, page, userDataDir }. */
async function launchEditor({ baseUrl, owner, executablePath }) {
	const userDataDir = mkdtempSync(join(tmpdir(), 'proxy-account-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath,
		headless: true,
		args: CHROMIUM_FLAGS,
		baseURL: baseUrl,
		viewport: { width: 1440, height: 900 },
		deviceScaleFactor: 1,
		timeout: 60_000,
	});
	try {
		const login = await context.request.post('/rest/login', {
			data: { emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password },
		});
		if (!login.ok()) throw new Error(`browser login failed: HTTP ${login.status()} ${(await login.text()).slice(0, 300)}`);
	} catch (error) {
		await context.close().catch(() => undefined);
		rmSync(userDataDir, { recursive: true, force: true });
		throw error;
	}
	const page = context.pages()[0] ?? (await context.newPage());
	page.setDefaultTimeout(60_000);
	page.on('dialog', (dialog) => void dialog.accept());
	return { context, page, userDataDir };
}

/**
 * Screenshots of one workflow: its canvas (`canvasFile`) and, when `node` and `nodeFile` are given,
 * that node's panel opened (not run). Options: baseUrl, owner, executablePath, workflowId, log.
 */
export async function captureWorkflow({ baseUrl, owner, executablePath, workflowId, canvasFile, node, nodeFile, log = console.log }) {
	mkdirSync(dirname(canvasFile), { recursive: true });
	const { context, page, userDataDir } = await launchEditor({ baseUrl, owner, executablePath });
	try {
		log(`browser: opening workflow ${workflowId}`);
		await openWorkflow(page, workflowId);
		// n8n 2.x shows a "Production Checklist" over an active workflow's canvas.
		const checklist = page.getByText('Production Checklist', { exact: true });
		if (await checklist.isVisible().catch(() => false)) {
			await checklist.locator('xpath=..').locator('button, [role="button"], svg').last().click({ timeout: 5_000 }).catch(() => undefined);
			await page.waitForTimeout(300);
		}
		await page.mouse.move(2, 2);
		await page.screenshot({ path: canvasFile });
		const files = [canvasFile];
		if (node && nodeFile) {
			await openNode(page, node);
			await page.mouse.move(2, 2);
			await page.waitForTimeout(500);
			await page.screenshot({ path: nodeFile });
			files.push(nodeFile);
		}
		return files;
	} finally {
		await context.close().catch(() => undefined);
		rmSync(userDataDir, { recursive: true, force: true });
	}
}

/**
 * Logs in, opens the workflows and saves screenshots. Options:
 *   baseUrl, owner {email, password}, executablePath, outDir, suffix ('' or '-n8n1'),
 *   actionWorkflow {id, node}, triggerWorkflow {id, node} (optional), log.
 * Returns { files: string[], outputText }.
 */
export async function captureEditor(options) {
	const { baseUrl, owner, executablePath, outDir, suffix = '', actionWorkflow, triggerWorkflow, log = console.log } = options;
	mkdirSync(outDir, { recursive: true });
	const files = [];
	let context;
	let userDataDir;
	try {
		let page;
		({ context, page, userDataDir } = await launchEditor({ baseUrl, owner, executablePath }));

		log(`browser: opening workflow ${actionWorkflow.id}`);
		await openWorkflow(page, actionWorkflow.id);
		if (page.url().includes('/signin')) throw new Error('the editor shows the sign-in page: the login cookie was not accepted');
		const canvas = join(outDir, `canvas${suffix}.png`);
		await page.screenshot({ path: canvas });
		files.push(canvas);

		log(`browser: opening node "${actionWorkflow.node}" and running it`);
		await openNode(page, actionWorkflow.node);
		await page.locator('[data-test-id="node-execute-button"]').first().click();
		const outputText = await waitForOutput(page, 60_000);
		await dismissToasts(page);
		const panel = join(outDir, `node-panel${suffix}.png`);
		await page.screenshot({ path: panel });
		files.push(panel);

		if (triggerWorkflow) {
			log(`browser: opening workflow ${triggerWorkflow.id} (trigger)`);
			await page.keyboard.press('Escape');
			await openWorkflow(page, triggerWorkflow.id);
			await openNode(page, triggerWorkflow.node);
			// "Fetch Test Event": a polling trigger returns a sample in manual mode.
			const execute = page.locator('[data-test-id="node-execute-button"]').first();
			if (await execute.isVisible().catch(() => false)) {
				await execute.click();
				await waitForOutput(page, 45_000).catch(() => log('browser: the trigger panel showed no output (screenshot taken anyway)'));
				await dismissToasts(page);
			}
			const trigger = join(outDir, `trigger-panel${suffix}.png`);
			await page.screenshot({ path: trigger });
			files.push(trigger);
		}
		return { files, outputText };
	} catch (error) {
		// Keep what the browser showed when it went wrong, outside docs/.
		const page = context?.pages()[0];
		if (page) {
			const shot = join(tmpdir(), `proxy-account-e2e-failure-${Date.now()}.png`);
			if (await page.screenshot({ path: shot }).then(() => true, () => false)) error.message += ` (the page at that moment: ${shot})`;
		}
		throw error;
	} finally {
		if (context) await context.close().catch(() => undefined);
		if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
	}
}
