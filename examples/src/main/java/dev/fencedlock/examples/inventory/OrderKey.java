package dev.fencedlock.examples.inventory;

/**
 * An order as both services name it: its SKU and the token of the lease that sold it. One lease
 * sells one unit, so the pair is unique in the inventory's orders table.
 */
record OrderKey(String sku, long token) {}
