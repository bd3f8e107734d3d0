/* Mark each sideways-scrolling table box with the side that has more to see (data-more: left, right, both), so the
   page can draw a shadow there; a box that fits gets no mark. */
(function () {
  "use strict";
  var boxes = document.querySelectorAll(".scroll");
  function mark(box) {
    var hidden = box.scrollWidth - box.clientWidth;
    var left = box.scrollLeft > 1;
    var right = hidden - box.scrollLeft > 1;
    var more = left && right ? "both" : left ? "left" : right ? "right" : "";
    if (more) { box.setAttribute("data-more", more); } else { box.removeAttribute("data-more"); }
  }
  function markAll() { for (var i = 0; i < boxes.length; i++) { mark(boxes[i]); } }
  for (var i = 0; i < boxes.length; i++) {
    boxes[i].addEventListener("scroll", function (event) { mark(event.currentTarget); }, {passive: true});
  }
  window.addEventListener("resize", markAll);
  document.addEventListener("input", markAll);  // the filter above hides rows, and a table can narrow
  document.addEventListener("change", markAll);
  markAll();
})();
