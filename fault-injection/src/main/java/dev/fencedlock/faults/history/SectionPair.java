package dev.fencedlock.faults.history;

/**
 * Two critical sections of the same lock that the checker found worth reporting together: an
 * overlap, or a token inversion ({@code first} was granted before {@code second} began to acquire,
 * yet {@code second}'s token is not larger), or two grants with the same token.
 */
public record SectionPair(CriticalSection first, CriticalSection second) {

    /** Whether both clients believed they held the lock at one instant. */
    public boolean bothBelievedValid() {
        return first.bothBelievedValid(second);
    }

    /** Whether either client learned of the loss of its lease: the overlap was announced. */
    public boolean explainedByLoss() {
        return first.lost() || second.lost();
    }

    @Override
    public String toString() {
        return first + " / " + second;
    }
}
