import { MemoryServingState } from './memory-serving-state';
import { describeServingStateContract } from './serving-state.contract';

describeServingStateContract('memory', () => new MemoryServingState());
