package dev.fencedlock;

import dev.fencedlock.spi.BackendSettings;
import java.util.Collection;
import java.util.Optional;

/**
 * Decides whether a name found in the process's surroundings (a system property, an environment
 * variable) that is not a configuration key was meant to be one. Names are compared in their
 * environment-variable form ({@link LockConfig#environmentVariable}), so {@code
 * fencedlock.lease_time} and {@code FENCEDLOCK_LEASE_TIM} both resemble {@code
 * fencedlock.lease-time}. A name resembles a key when:
 *
 * <ol>
 *   <li>it is within {@value #MAX_EDITS} edits (insert, delete, replace, swap of neighbours) of the
 *       key, or
 *   <li>it starts with the prefix of a backend on the classpath ({@code fencedlock.redlock.}) and
 *       names no key of it, since every name under that prefix is the backend's.
 * </ol>
 *
 * <p>Stateless and thread-safe.
 */
final class KeyResemblance {
    static final int MAX_EDITS = 2;

    private KeyResemblance() {}

    /**
     * @param name a {@code fencedlock.*} name or {@code FENCEDLOCK_*} variable that is not a key
     * @param knownKeys every key the reader knows
     * @return the key within {@value #MAX_EDITS} edits of {@code name} (the nearest; the first of
     *     {@code knownKeys} among equally near ones); empty when none is that near
     */
    static Optional<String> closestKey(String name, Collection<String> knownKeys) {
        String variable = LockConfig.environmentVariable(name);
        String closest = null;
        int closestDistance = MAX_EDITS + 1;
        for (String key : knownKeys) {
            int distance = distance(variable, LockConfig.environmentVariable(key), closestDistance);
            if (distance < closestDistance) {
                closest = key;
                closestDistance = distance;
            }
        }
        return Optional.ofNullable(closest);
    }

    /**
     * @param name a {@code fencedlock.*} name or {@code FENCEDLOCK_*} variable that is not a key
     * @param backends the backends whose prefixes belong to them
     * @return the backend whose prefix {@code name} starts with; empty when it uses none
     */
    static Optional<String> backendPrefixOf(String name, Collection<String> backends) {
        String variable = LockConfig.environmentVariable(name);
        for (String backend : backends) {
            if (variable.startsWith(LockConfig.environmentVariable(BackendSettings.prefix(backend)))) {
                return Optional.of(backend);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code name} resembles a key: {@link #closestKey} or {@link #backendPrefixOf} finds one. */
    static boolean resembles(String name, Collection<String> knownKeys, Collection<String> backends) {
        return closestKey(name, knownKeys).isPresent()
                || backendPrefixOf(name, backends).isPresent();
    }

    /**
     * Optimal string alignment distance, or {@code limit} or more when it is at least {@code
     * limit}.
     */
    static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
        int[] beforePrevious = new int[b.length() + 1];
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int best = Math.min(Math.min(previous[j] + 1, current[j - 1] + 1), previous[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    best = Math.min(best, beforePrevious[j - 2] + 1);
                }
                current[j] = best;
            }
            int[] recycled = beforePrevious;
            beforePrevious = previous;
            previous = current;
            current = recycled;
        }
        return Math.min(previous[b.length()], limit);
    }
}
