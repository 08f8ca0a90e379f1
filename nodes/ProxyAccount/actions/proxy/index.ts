import { defineResource } from '../registry';
import * as extend from './extend.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as setIpv4 from './setIpv4.operation';
import * as setAuthentication from './setAuthentication.operation';
import * as remove from './remove.operation';
import * as buy from './buy.operation';
import * as changeLocation from './changeLocation.operation';
import * as setAutoRenew from './setAutoRenew.operation';
import * as rotateIp from './rotateIp.operation';
import * as reboot from './reboot.operation';
import * as setAutoRotation from './setAutoRotation.operation';

export const proxy = defineResource(
	{ value: 'proxy', name: 'Proxy' },
	[
		extend,
		get,
		getAll,
		setIpv4,
		setAuthentication,
		remove,
		buy,
		changeLocation,
		setAutoRenew,
		rotateIp,
		reboot,
		setAutoRotation,
	],
	getAll,
);
