//! Linux without a GPU: keep the app process off the software GL stack.
//!
//! With no DRM render node (`/dev/dri/renderD*`) — a virtual machine, a
//! remote desktop, the CI display — any OpenGL is Mesa's software rasterizer.
//! GTK probes GLX when it opens the display, and WebKit opens an EGL display
//! to find the render device it hands the web process; either one loads
//! Mesa and `libLLVM`, about 50 MiB resident in the app process, for a page
//! that is then drawn by the CPU anyway. Measured on the 1,000-session store
//! under Xvfb: 208 MiB resident with them, 141–151 MiB without, the same
//! pixels.
//!
//! The web process still loads them (WebKit insists on an EGL display there).
//! With a render node present nothing changes, and a variable the user has
//! set is never overridden. Being environment variables, they also reach any
//! process the app starts; the app starts none but WebKit's own.
//! Linux only (`lib.rs` includes the module there).

/// `(name, value)` of the variables that keep GTK and WebKit's app process
/// from opening a GL display:
/// - `GDK_GL=disable`: GTK skips its GLX probe (the app draws no GL itself);
/// - `WEBKIT_DISABLE_DMABUF_RENDERER=1`: WebKit hands frames over in shared
///   memory instead of DMA-BUF, which needs no EGL display in this process;
/// - `WEBKIT_WEB_RENDER_DEVICE_FILE`: the render device for the web process.
///   There is none, so this names the conventional first node, which does
///   not exist here: given a path, WebKit looks it up with libdrm (and finds
///   nothing) instead of creating an EGL display to ask Mesa (WebKitGTK
///   2.50's `drmMainDevice`). A later WebKit that ignores the variable only
///   loses the saving.
const SOFTWARE_ONLY: [(&str, &str); 3] = [
    ("GDK_GL", "disable"),
    ("WEBKIT_DISABLE_DMABUF_RENDERER", "1"),
    ("WEBKIT_WEB_RENDER_DEVICE_FILE", "/dev/dri/renderD128"),
];

/// The variables to set: none when there is a render node, and none that
/// the user's environment already has.
fn variables_to_set(
    has_render_node: bool,
    is_set: impl Fn(&str) -> bool,
) -> Vec<(&'static str, &'static str)> {
    if has_render_node {
        return Vec::new();
    }
    SOFTWARE_ONLY
        .into_iter()
        .filter(|(name, _)| !is_set(name))
        .collect()
}

fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|dir| {
        dir.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Called first thing in `run`, before GTK starts and before any thread.
pub fn avoid_software_gl() {
    for (name, value) in variables_to_set(has_render_node(), |n| std::env::var_os(n).is_some()) {
        std::env::set_var(name, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_with_a_render_node_keeps_its_gl() {
        assert!(variables_to_set(true, |_| false).is_empty());
    }

    #[test]
    fn without_one_gtk_and_webkit_are_kept_off_gl() {
        let names: Vec<_> = variables_to_set(false, |_| false)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            names,
            [
                "GDK_GL",
                "WEBKIT_DISABLE_DMABUF_RENDERER",
                "WEBKIT_WEB_RENDER_DEVICE_FILE"
            ]
        );
    }

    #[test]
    fn what_the_user_set_is_left_alone() {
        let set = variables_to_set(false, |n| n == "WEBKIT_DISABLE_DMABUF_RENDERER");
        assert!(set
            .iter()
            .all(|(n, _)| *n != "WEBKIT_DISABLE_DMABUF_RENDERER"));
        assert_eq!(set.len(), 2);
    }
}
