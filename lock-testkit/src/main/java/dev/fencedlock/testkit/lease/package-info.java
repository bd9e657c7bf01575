/** Leases as a test needs them: one a paused holder still believes valid. */
package dev.fencedlock.testkit.lease;
