package protocol

// ReduceResourceWatch returns s unchanged for every action. The watch
// state is only its configuration; resourceWatch/changed batches are
// events that subscribers consume straight off the action stream, and the
// reducer keeps no change history.
func ReduceResourceWatch(s ResourceWatchState, a StateAction) ResourceWatchState {
	return s
}
