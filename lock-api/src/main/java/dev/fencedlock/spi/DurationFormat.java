package dev.fencedlock.spi;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as configuration writes them ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h},
 * {@code 1d} or ISO-8601), read and written the same way by every backend, so that a backend's
 * settings and messages look like the common ones. Every parse error is an {@link
 * IllegalArgumentException} naming the key and the value. Stateless.
 */
public final class DurationFormat {
    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    /**
     * The longest duration configuration accepts: a quarter of what a {@code long} of nanoseconds
     * holds (about 73 years), so that adding it to a {@link System#nanoTime()} reading or to
     * another such duration cannot overflow.
     */
    public static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE / 4);

    private DurationFormat() {}

    /**
     * Like {@link #parse}, and the duration must be positive.
     *
     * @throws IllegalArgumentException naming {@code key} and the value when it cannot be read, is
     *     zero or negative, or is longer than {@link #MAX}
     */
    public static Duration parsePositive(String key, String value) {
        Duration duration = parse(key, value);
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException(key + " must be positive, got " + format(duration));
        }
        return duration;
    }

    /**
     * Checks a duration given programmatically.
     *
     * @throws IllegalArgumentException naming {@code key} if it is null, zero, negative or longer
     *     than {@link #MAX}
     */
    public static Duration requirePositive(String key, Duration value) {
        if (value == null) {
            throw new IllegalArgumentException(key + " must not be null");
        }
        if (value.isZero() || value.isNegative()) {
            throw new IllegalArgumentException(key + " must be positive, got " + format(value));
        }
        return requireMeasurable(key, format(value), value);
    }

    private static Duration requireMeasurable(String key, String shown, Duration value) {
        if (value.abs().compareTo(MAX) > 0) {
            throw new IllegalArgumentException(key + " has '" + shown + "', longer than the longest supported duration "
                    + MAX.toDays() + "d (" + MAX.toDays() / 365 + " years): it must be measurable in nanoseconds");
        }
        return value;
    }

    /**
     * Parses a duration written with a unit ({@code ms}, {@code s}, {@code m}, {@code h}, {@code d})
     * or in ISO-8601 ({@code PT30S}).
     *
     * @throws IllegalArgumentException naming {@code key} and the value when it cannot be read
     */
    public static Duration parse(String key, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " is empty; expected a duration such as 500ms, 30s or 2m");
        }
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher matcher = SIMPLE.matcher(text);
        if (matcher.matches()) {
            long amount = Long.parseLong(matcher.group(1));
            Duration duration = switch (matcher.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
            return requireMeasurable(key, value, duration);
        }
        if (text.startsWith("pt") || text.startsWith("p")) {
            try {
                return requireMeasurable(key, value, Duration.parse(value.trim()));
            } catch (DateTimeParseException e) {
                // fall through to the common message
            }
        }
        throw new IllegalArgumentException(key + " has '" + value
                + "', which is not a duration; expected a number with a unit (ms, s, m, h, d) such as 500ms,"
                + " 30s or 2m");
    }

    /** Formats a duration the way it is written in configuration, for messages. */
    public static String format(Duration duration) {
        if (duration.isNegative()) {
            return "-" + format(duration.negated());
        }
        long millis = duration.toMillis();
        if (millis == 0) {
            return duration.isZero() ? "0s" : duration.toNanos() + "ns";
        }
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
