//! Entry point of the desktop app; everything is in the library so the IPC
//! tests can build the same app on Tauri's mock runtime.

// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    servicedesk_desktop::run()
}
