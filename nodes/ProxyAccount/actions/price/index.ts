import { defineResource } from '../registry';
import * as quote from './quote.operation';

export const price = defineResource({ value: 'price', name: 'Price' }, [quote], quote);
