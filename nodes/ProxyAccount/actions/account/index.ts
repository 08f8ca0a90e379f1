import { defineResource } from '../registry';
import * as getFunds from './getFunds.operation';

export const account = defineResource({ value: 'account', name: 'Account' }, [getFunds], getFunds);
