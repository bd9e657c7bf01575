package dev.fencedlock.spring.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.function.Supplier;

/**
 * {@link LockedObservations} as Micrometer observations in the application's {@link
 * ObservationRegistry}, which Spring Boot's tracing turns into spans (and its meter handler into
 * timers named like the observations, tagged with the low-cardinality values only). Each step is a
 * child of the observation current on the thread when it starts. Thread-safe.
 */
final class MicrometerObservations implements LockedObservations {
    private final Supplier<ObservationRegistry> registry;

    /** @param registry looked up on each call; {@link ObservationRegistry#NOOP} observes nothing */
    public MicrometerObservations(Supplier<ObservationRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Step start(String step, String lockName) {
        ObservationRegistry current = registry.get();
        if (current.isNoop()) {
            return Step.NONE;
        }
        Observation observation = Observation.createNotStarted(step, current)
                .contextualName(step.replace('.', ' '))
                .highCardinalityKeyValue(LOCK_NAME, lockName)
                .start();
        return new ObservedStep(observation);
    }

    private record ObservedStep(Observation observation) implements Step {
        @Override
        public Step lowCardinality(String key, String value) {
            observation.lowCardinalityKeyValue(key, value);
            return this;
        }

        @Override
        public Step highCardinality(String key, String value) {
            observation.highCardinalityKeyValue(key, value);
            return this;
        }

        @Override
        public Scope openScope() {
            return observation.openScope()::close;
        }

        @Override
        public void error(Throwable failure) {
            observation.error(failure);
        }

        @Override
        public void stop() {
            observation.stop();
        }
    }
}
