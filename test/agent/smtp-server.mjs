/**
 * A minimal SMTP receiver on 127.0.0.1 for test:agent's human review: n8n's Email Send node (its
 * human-review tool variant) sends the approve/decline links there; the suite reads them from the
 * captured mail and follows one, as the reviewer would. No AUTH, no STARTTLS; keeps every message.
 *
 *   const smtp = await startSmtpServer();  // smtp.port
 *   const mail = await smtp.waitForMail(after); // { raw, html, links }
 */
import { createServer } from 'node:net';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Decodes quoted-printable (soft line breaks and =XX) as nodemailer writes HTML bodies. */
function decodeQuotedPrintable(text) {
	const bytes = text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
	return Buffer.from(bytes, 'latin1').toString('utf8');
}

export async function startSmtpServer() {
	const messages = [];
	const server = createServer((socket) => {
		let buffer = '';
		let inData = false;
		let data = '';
		const reply = (line) => socket.write(`${line}\r\n`);
		reply('220 127.0.0.1 test SMTP');
		socket.on('data', (chunk) => {
			buffer += chunk.toString('latin1');
			for (;;) {
				if (inData) {
					const end = buffer.indexOf('\r\n.\r\n');
					if (end < 0) return;
					data += buffer.slice(0, end);
					buffer = buffer.slice(end + 5);
					inData = false;
					const decoded = decodeQuotedPrintable(data.replace(/^\.\./gm, '.'));
					messages.push({ at: Date.now(), raw: data, html: decoded, links: [...decoded.matchAll(/href="([^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&')) });
					data = '';
					reply('250 OK: queued');
					continue;
				}
				const eol = buffer.indexOf('\r\n');
				if (eol < 0) return;
				const line = buffer.slice(0, eol);
				buffer = buffer.slice(eol + 2);
				const verb = line.slice(0, 4).toUpperCase();
				if (verb === 'EHLO') {
					socket.write('250-127.0.0.1\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n');
				} else if (verb === 'HELO') reply('250 127.0.0.1');
				else if (verb === 'DATA') {
					inData = true;
					reply('354 End data with <CR><LF>.<CR><LF>');
				} else if (verb === 'QUIT') {
					reply('221 Bye');
					socket.end();
					return;
				} else reply('250 OK');
			}
		});
		socket.on('error', () => undefined);
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen({ port: 0, host: '127.0.0.1' }, resolve);
	});
	return {
		port: server.address().port,
		messages,
		/** The first message after index `after`, waiting up to `timeoutMs`. */
		async waitForMail(after = 0, timeoutMs = 30_000) {
			const deadline = Date.now() + timeoutMs;
			while (messages.length <= after) {
				if (Date.now() > deadline) throw new Error(`no mail reached the SMTP receiver within ${timeoutMs / 1000} s`);
				await sleep(200);
			}
			return messages[after];
		},
		stop: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
