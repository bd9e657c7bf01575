package dev.fencedlock.internal.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses configuration durations such as {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}. */
public final class DurationFormat {
    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)");

    private DurationFormat() {}

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
            return switch (matcher.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        if (text.startsWith("pt") || text.startsWith("p")) {
            try {
                return Duration.parse(value.trim());
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
