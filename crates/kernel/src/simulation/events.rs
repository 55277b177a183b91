//! Events and the events manager of event-driven simulations (Siconos' `Event`,
//! `EventsManager`; Siconos documentation, "Simulation component", section "Events", and
//! "Event-Driven schemes", sections "Events" and "The Events manager").
//!
//! The manager holds the past events and the unprocessed (scheduled) ones, sorted by time (a
//! time-discretisation event before a nonsmooth one at the same time, as Siconos orders its
//! event types). It starts with the time-discretisation events of the grid (scheduled one ahead:
//! processing the event at `t_k` schedules `t_{k+1}`), and receives the nonsmooth events that root
//! finding detects and the events the user adds. Events are processed one at a time.
//!
//! As in Siconos 4.4 (`EventsManager::scheduleNonSmoothEvent`), a grid point that falls less than
//! the manager's gap (`1e-14`, Siconos' 100 ticks of `1e-16`) after a nonsmooth event is dropped:
//! the integrator could not go from the one to the other; the grid then continues at the next
//! point.

use super::time_stepping::TimeDiscretisation;
use crate::KernelError;

/// Kinds of events (Siconos' event types).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventKind {
    /// A point of the user's time discretisation (Siconos type 1).
    TimeDiscretisation,
    /// A nonsmooth event found by root finding: an impact or a change of the active sets
    /// (Siconos type 2).
    Nonsmooth,
    /// An event the user added (e.g. an output time).
    User,
}

/// An event: a time and a kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event {
    /// Time of occurrence.
    pub time: f64,
    /// Kind.
    pub kind: EventKind,
}

/// Past and unprocessed events (Siconos' `EventsManager`).
#[derive(Clone, Debug)]
pub struct EventsManager {
    grid: TimeDiscretisation,
    /// Index of the next time-discretisation event to schedule.
    next_k: usize,
    unprocessed: Vec<Event>,
    past: Vec<Event>,
    current: Event,
    tolerance: f64,
}

/// The gap under which a grid point after a nonsmooth event is dropped (Siconos' 100 ticks of
/// `1e-16` s).
pub const EVENT_TOLERANCE: f64 = 1e-14;

impl EventsManager {
    /// The manager of `grid`: the current event is `t0`, the first scheduled one `t1`.
    pub fn new(grid: TimeDiscretisation) -> Self {
        let mut manager = Self {
            grid,
            next_k: 1,
            unprocessed: Vec::new(),
            past: Vec::new(),
            current: Event { time: grid.t0(), kind: EventKind::TimeDiscretisation },
            tolerance: EVENT_TOLERANCE,
        };
        manager.schedule_next_grid_event();
        manager
    }

    /// Sets the tolerance under which two events are simultaneous.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] for a negative or non-finite tolerance.
    pub fn with_tolerance(mut self, tolerance: f64) -> Result<Self, KernelError> {
        if !tolerance.is_finite() || tolerance < 0.0 {
            return Err(KernelError::InvalidOption {
                name: "event tolerance",
                reason: "must be finite and non-negative",
            });
        }
        self.tolerance = tolerance;
        Ok(self)
    }

    fn schedule_next_grid_event(&mut self) {
        let t = self.grid.time(self.next_k);
        if t <= self.grid.t_end() {
            self.insert(Event { time: t, kind: EventKind::TimeDiscretisation });
        }
        self.next_k += 1;
    }

    fn insert(&mut self, event: Event) {
        let at = self
            .unprocessed
            .iter()
            .position(|e| e.time.total_cmp(&event.time).then(e.kind.cmp(&event.kind)).is_gt())
            .unwrap_or(self.unprocessed.len());
        self.unprocessed.insert(at, event);
    }

    /// Whether an event remains to be processed.
    pub fn has_next_event(&self) -> bool {
        !self.unprocessed.is_empty()
    }

    /// Time of the current (last processed) event: the start of the next integration.
    pub fn starting_time(&self) -> f64 {
        self.current.time
    }

    /// The current (last processed) event.
    pub fn current_event(&self) -> Event {
        self.current
    }

    /// The next event, if any.
    pub fn next_event(&self) -> Option<Event> {
        self.unprocessed.first().copied()
    }

    /// Time of the next event (`None` when none is left).
    pub fn next_time(&self) -> Option<f64> {
        self.next_event().map(|e| e.time)
    }

    /// The events processed so far, in order.
    pub fn past_events(&self) -> &[Event] {
        &self.past
    }

    /// The unprocessed events, in order.
    pub fn unprocessed_events(&self) -> &[Event] {
        &self.unprocessed
    }

    /// Schedules a nonsmooth event at `time` (found by root finding), dropping a grid point
    /// within the gap after it (and scheduling the following one instead). Returns whether a grid
    /// point was dropped.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] when `time` is not finite or lies before the current event.
    pub fn schedule_nonsmooth(&mut self, time: f64) -> Result<bool, KernelError> {
        self.schedule(time, EventKind::Nonsmooth)?;
        let gap = self.tolerance;
        let dropped = self
            .unprocessed
            .iter()
            .position(|e| e.kind == EventKind::TimeDiscretisation && e.time >= time && e.time - time <= gap);
        if let Some(i) = dropped {
            self.unprocessed.remove(i);
            self.schedule_next_grid_event();
        }
        Ok(dropped.is_some())
    }

    /// Adds a user event at `time`.
    ///
    /// # Errors
    /// [`KernelError::InvalidOption`] when `time` is not finite or lies before the current event.
    pub fn add_user_event(&mut self, time: f64) -> Result<(), KernelError> {
        self.schedule(time, EventKind::User)
    }

    fn schedule(&mut self, time: f64, kind: EventKind) -> Result<(), KernelError> {
        if !time.is_finite() || time < self.current.time - self.tolerance {
            return Err(KernelError::InvalidOption {
                name: "event time",
                reason: "must be finite and not in the past",
            });
        }
        self.insert(Event { time, kind });
        Ok(())
    }

    /// Processes the next event: it moves to the past and becomes the current event; a grid event
    /// schedules the next grid point. Returns its kind (`None` when no event was left).
    pub fn process_events(&mut self) -> Option<EventKind> {
        if self.unprocessed.is_empty() {
            return None;
        }
        let event = self.unprocessed.remove(0);
        self.current = event;
        if event.kind == EventKind::TimeDiscretisation {
            self.schedule_next_grid_event();
        }
        self.past.push(event);
        Some(event.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid() -> TimeDiscretisation {
        TimeDiscretisation::new(0.0, 0.5, 2.0).expect("valid grid")
    }

    #[test]
    fn grid_events_come_one_after_the_other() {
        let mut m = EventsManager::new(grid());
        let mut times = Vec::new();
        while m.has_next_event() {
            assert_eq!(m.process_events(), Some(EventKind::TimeDiscretisation));
            times.push(m.starting_time());
        }
        assert_eq!(times.len(), 4);
        assert!((times[3] - 2.0).abs() < 1e-15);
        assert_eq!(m.past_events().len(), 4);
    }

    #[test]
    fn nonsmooth_and_user_events_are_sorted_and_a_grid_point_right_after_an_impact_is_dropped() {
        let mut m = EventsManager::new(grid());
        assert!(!m.schedule_nonsmooth(0.3).expect("future event"));
        m.add_user_event(0.2).expect("future event");
        assert!((m.next_time().expect("events left") - 0.2).abs() < 1e-15);
        assert_eq!(m.process_events(), Some(EventKind::User));
        assert_eq!(m.process_events(), Some(EventKind::Nonsmooth));
        assert!((m.starting_time() - 0.3).abs() < 1e-15);
        assert_eq!(m.process_events(), Some(EventKind::TimeDiscretisation));
        // A root 1e-15 before t = 1: the grid point 1 is dropped, 1.5 comes next.
        assert!(m.schedule_nonsmooth(1.0 - 1e-15).expect("future event"));
        assert_eq!(m.process_events(), Some(EventKind::Nonsmooth));
        assert!((m.next_time().expect("grid continues") - 1.5).abs() < 1e-15);
        // A root 1e-12 before a grid point leaves it in place.
        assert!(!m.schedule_nonsmooth(1.5 - 1e-12).expect("future event"));
        assert_eq!(m.process_events(), Some(EventKind::Nonsmooth));
        assert_eq!(m.process_events(), Some(EventKind::TimeDiscretisation));
    }

    #[test]
    fn past_or_non_finite_events_are_refused() {
        let mut m = EventsManager::new(grid());
        m.process_events();
        assert!(matches!(m.schedule_nonsmooth(0.1), Err(KernelError::InvalidOption { .. })));
        assert!(matches!(m.add_user_event(f64::NAN), Err(KernelError::InvalidOption { .. })));
        assert!(matches!(EventsManager::new(grid()).with_tolerance(-1.0), Err(KernelError::InvalidOption { .. })));
    }
}
